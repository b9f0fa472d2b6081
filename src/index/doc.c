/*
 * doc.c — document parsing: a source JSON and a mapping become a
 * tv_parsed_doc (per field: tokens, numbers in sortable encoding, keyword
 * doc values), plus the dynamic mapping update for fields the mapping does
 * not know yet.
 *
 * Algorithm. The source is parsed into a DOM (json layer) and walked with
 * the mapping tree side by side. Dotted keys ("a.b": 1) are walked as
 * nested objects. A known leaf converts each value (arrays flattened,
 * multi-fields fed the same value) into its field's accumulator, one per
 * field id, so array values of one field land in one tv_doc_field with
 * positions continuing across values (+ position_increment_gap). An
 * unknown field is resolved by the nearest enclosing object's `dynamic`:
 * strict fails, false skips, true records a typed entry in an update tree
 * (OpenSearch's rules: string -> text + keyword sub-field or date when date
 * detection matches, integer -> long, fraction -> float, boolean, object,
 * arrays by their first non-null element). With any update recorded the
 * caller merges it and parses again, so the indexed form always comes from
 * a mapping that was published — the same two-step OpenSearch performs.
 *
 * Values are converted as OpenSearch's field mappers do: numbers are range
 * checked per type with coercion of strings and fractions, floats are
 * rounded to their type's precision before encoding, scaled_float stores
 * Math.round(value * factor), dates go through date.c, booleans index
 * "T"/"F". Errors carry OpenSearch's reason and cause. Before parsing, a
 * source whose first non-blank byte is not '{' fails as OpenSearch's
 * content-type detection does (not_x_content_exception); JSON errors carry
 * Jackson's location suffix; a second value after the root object (which
 * Jackson reads without complaint) fails after the document was walked,
 * as DocumentParser's end check does.
 *
 * Alternatives rejected: a streaming (SAX) walk without a DOM — the DOM is
 * needed anyway to filter _source and costs one arena pass; indexing
 * dynamic fields on the first pass with a provisional mapping — it would
 * duplicate the merge rules and could index a doc under a mapping that
 * later fails to merge.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "index/date.h"
#include "index/mapping_int.h"

/* ------------------------------------------------------------- accumulators */

typedef struct acc {
    const tv_field *f;
    TV_VEC(tv_token) toks;
    TV_VEC(int64_t) nums;
    TV_VEC(const char *) keys;
    TV_VEC(uint32_t) key_lens;
    uint32_t next_pos;   /* text: offset for the next value */
    uint32_t length;     /* norms length */
    uint32_t values;
    bool any;
    TV_VEC(const tv_json *) raw; /* derived source: the values as given (stored fields) */
} acc;

/* The dynamic update under construction. */
typedef struct unode unode;
struct unode {
    const char *name;
    size_t name_len;
    const char *type;   /* "object", "text", "long", ... */
    const char *format; /* date format to record, or NULL */
    const tv_json *tmpl; /* mapping from a dynamic template (rendered), or NULL */
    bool existing;       /* stands for an object already mapped (update_for_path) */
    unode *first, *next;
};

typedef TV_VEC(acc *) accvec;

typedef struct dctx {
    const tv_mapping *m;
    tv_arena *a;
    tv_error *err;
    const char *id;
    size_t id_len;
    acc **accs; /* by field id (ids < nf) */
    uint32_t nf;
    accvec *used; /* the current doc's accumulators in use */
    unode *update; /* root of the update ("properties" of _doc), NULL if none */
    tv_status st;
    /* unmap_fields_beyond_limit: fields the mapping plus the update may hold */
    int64_t field_budget; /* < 0: unlimited */
    int64_t fields_used;  /* mapping's fields + those the update adds */
    /* nested objects: the docs made so far (block order), the limit, and
     * the root's accumulators while a nested object's are current */
    TV_VEC(tv_parsed_doc) kids;
    int64_t nested_count, nested_limit; /* nested objects begun, and the limit */
    acc **root_accs;
    accvec *root_used;
    int flatten; /* > 0: re-walking a nested object into an enclosing doc
                    (include_in_parent / include_in_root) */
    bool derived; /* index.derived_source.enabled: keep acc.raw */
} dctx;

static tv_status oom(dctx *c) {
    c->st = tv_error_oom(c->err);
    return c->st;
}

static acc *acc_of(dctx *c, const tv_field *f) {
    acc *x = NULL;
    if (f->id < c->nf) {
        x = c->accs[f->id];
    } else { /* flat_object sub-fields: ids outside the dense range */
        for (size_t i = 0; i < c->used->len && !x; i++)
            if (c->used->items[i]->f->id == f->id) x = c->used->items[i];
    }
    if (x) return x;
    x = tv_arena_calloc(c->a, 1, sizeof *x); /* the vectors inside are heap, freed by acc_free */
    if (!x) return NULL;
    x->f = f;
    if (tv_vec_push(c->used, x)) return NULL;
    if (f->id < c->nf) c->accs[f->id] = x;
    return x;
}

static void acc_free(acc *x) {
    tv_vec_fini(&x->toks);
    tv_vec_fini(&x->nums);
    tv_vec_fini(&x->keys);
    tv_vec_fini(&x->key_lens);
    tv_vec_fini(&x->raw);
}

/* ------------------------------------------------------------- errors */

static void preview(const tv_json *v, tv_buf *b) {
    if (v->type == TV_JSON_STRING) tv_buf_append(b, v->v.s, v->len);
    else if (tv_json_is_number(v) && v->raw) tv_buf_append(b, v->raw, v->raw_len);
    else tv_json_to_java(v, b);
}

/* "failed to parse field [f] of type [t] in document with id 'x'. Preview
 * of field's value: 'v'" with cause (code, reason). */
static tv_status field_error(dctx *c, const tv_field *f, const tv_json *v, tv_status cause,
                             const char *cause_reason) {
    tv_buf b;
    tv_buf_init(&b);
    preview(v, &b);
    char saved[sizeof c->err->cause_reason];
    snprintf(saved, sizeof saved, "%s", cause_reason);
    c->st = tv_error_set(c->err, TROVE_EMAPPER,
                         "failed to parse field [%s] of type [%s] in document with id '%.*s'. "
                         "Preview of field's value: '%s'",
                         f->path, tv_field_declared_type(f), (int)c->id_len, c->id,
                         b.data ? b.data : "");
    tv_error_cause(c->err, cause, "%s", saved);
    tv_buf_fini(&b);
    if (!c->err) c->st = TROVE_EMAPPER;
    return c->st;
}

/* ------------------------------------------------------------- numbers */

static double java_round_scaled(double x, bool *overflow) {
    double fl = floor(x);
    double r = (x - fl) >= 0.5 ? fl + 1 : fl;
    *overflow = false;
    if (r >= 9223372036854775807.0) r = 9223372036854775807.0;
    if (r <= -9223372036854775808.0) r = -9223372036854775808.0;
    return r;
}

/* Rounds a float to the nearest IEEE half-precision value (ties to even). */
static double round_half(float f) {
    if (!isfinite(f) || f == 0) return f;
    double d = f, ad = fabs(d);
    double q;
    if (ad < 6.103515625e-05) { /* subnormal halves: quantum 2^-24 */
        q = ldexp(1.0, -24);
    } else {
        int e;
        frexp(ad, &e); /* ad = m * 2^e, m in [0.5, 1) */
        q = ldexp(1.0, e - 11);
    }
    double r = nearbyint(d / q) * q;
    if (fabs(r) > 65504.0) return d > 0 ? INFINITY : -INFINITY;
    return r;
}

static const char *int_type_article(tv_field_type t) {
    switch (t) {
    case TV_FT_INTEGER: return "an integer";
    case TV_FT_SHORT: return "a short";
    case TV_FT_BYTE: return "a byte";
    default: return "a long";
    }
}

static void int_bounds(tv_field_type t, int64_t *lo, int64_t *hi) {
    switch (t) {
    case TV_FT_INTEGER: *lo = INT32_MIN; *hi = INT32_MAX; break;
    case TV_FT_SHORT: *lo = INT16_MIN; *hi = INT16_MAX; break;
    case TV_FT_BYTE: *lo = INT8_MIN; *hi = INT8_MAX; break;
    default: *lo = INT64_MIN; *hi = INT64_MAX; break;
    }
}

static const char *java_class(tv_field_type t) {
    switch (t) {
    case TV_FT_LONG: return "Long";
    case TV_FT_INTEGER: case TV_FT_SHORT: case TV_FT_BYTE: return "Integer";
    case TV_FT_FLOAT: case TV_FT_HALF_FLOAT: return "Float";
    default: return "Double";
    }
}

/* Java's Double.parseDouble on [s, s+n): trims, accepts an f/d suffix. */
static bool java_parse_double(const char *s, size_t n, double *out) {
    while (n && (unsigned char)*s <= ' ') s++, n--;
    while (n && (unsigned char)s[n - 1] <= ' ') n--;
    if (!n || n > 400) return false;
    char tmp[401];
    memcpy(tmp, s, n);
    tmp[n] = '\0';
    if (tmp[n - 1] == 'f' || tmp[n - 1] == 'F' || tmp[n - 1] == 'd' || tmp[n - 1] == 'D')
        tmp[--n] = '\0';
    /* reject hex and inf/nan spellings strtod takes but Java does not */
    for (size_t i = 0; i < n; i++) {
        char ch = tmp[i];
        if (!((ch >= '0' && ch <= '9') || ch == '.' || ch == 'e' || ch == 'E' || ch == '+' ||
              ch == '-')) {
            if (strcmp(tmp, "NaN") == 0) {
                *out = NAN;
                return true;
            }
            if (strcmp(tmp, "Infinity") == 0 || strcmp(tmp, "+Infinity") == 0) {
                *out = INFINITY;
                return true;
            }
            if (strcmp(tmp, "-Infinity") == 0) {
                *out = -INFINITY;
                return true;
            }
            return false;
        }
    }
    char *end;
    *out = strtod(tmp, &end);
    return end != tmp && *end == '\0';
}

/* Converts a JSON value to the sortable int64 of a numeric field.
 * Returns TROVE_OK, or an error code with *reason set (for the cause). */
static tv_status number_value(const tv_field *f, const tv_json *v, int64_t *out, char *reason,
                              size_t rcap) {
    tv_field_type t = f->type;
    const char *txt = v->type == TV_JSON_STRING ? v->v.s : v->raw;
    size_t tlen = v->type == TV_JSON_STRING ? v->len : v->raw_len;
    if (!txt) txt = "", tlen = 0;
    if (v->type == TV_JSON_TRUE || v->type == TV_JSON_FALSE) {
        snprintf(reason, rcap,
                 "Current token (%s) not numeric, can not use numeric value accessors",
                 v->type == TV_JSON_TRUE ? "VALUE_TRUE" : "VALUE_FALSE");
        return TROVE_EJSON;
    }
    if (v->type == TV_JSON_OBJECT || v->type == TV_JSON_ARRAY) {
        snprintf(reason, rcap, "Current token (%s) not numeric, can not use numeric value accessors",
                 v->type == TV_JSON_OBJECT ? "START_OBJECT" : "START_ARRAY");
        return TROVE_EJSON;
    }
    if (v->type == TV_JSON_STRING && !f->coerce) {
        snprintf(reason, rcap, "%s value passed as String", java_class(t));
        return TROVE_EARG;
    }
    if (t == TV_FT_LONG || t == TV_FT_INTEGER || t == TV_FT_SHORT || t == TV_FT_BYTE) {
        int64_t lo, hi, iv;
        int_bounds(t, &lo, &hi);
        if (v->type == TV_JSON_INT) {
            iv = v->v.i;
        } else if (v->type == TV_JSON_UINT) {
            snprintf(reason, rcap, "Value [%.*s] is out of range for %s", (int)tlen, txt,
                     int_type_article(t));
            return TROVE_EARG;
        } else {
            double d;
            if (v->type == TV_JSON_DOUBLE) {
                d = v->v.d;
            } else if (t == TV_FT_LONG && tv_parse_i64(txt, tlen, &iv)) {
                goto have_int;
            } else if (!java_parse_double(txt, tlen, &d)) {
                snprintf(reason, rcap, "For input string: \"%.*s\"", (int)TV_MIN(tlen, 200), txt);
                return t == TV_FT_LONG ? TROVE_EARG : TROVE_ENUMBERFORMAT;
            }
            if (isnan(d) || d < (double)lo || d >= -(double)lo + (t == TV_FT_LONG ? 0.0 : 0.0) ||
                d > (double)hi) {
                if (!(d <= (double)hi && d >= (double)lo) || isnan(d)) {
                    snprintf(reason, rcap, "Value [%.*s] is out of range for %s",
                             (int)TV_MIN(tlen, 200), txt, int_type_article(t));
                    return TROVE_EARG;
                }
            }
            if (!f->coerce && d != trunc(d)) {
                snprintf(reason, rcap, "Value [%.*s] has a decimal part", (int)TV_MIN(tlen, 200), txt);
                return TROVE_EARG;
            }
            iv = tv_java_d2l(d); /* truncation toward zero, as Java's longValue */
        }
    have_int:
        if (iv < lo || iv > hi) {
            snprintf(reason, rcap, "Value [%lld] is out of range for %s", (long long)iv,
                     int_type_article(t));
            return TROVE_EARG;
        }
        *out = iv;
        return TROVE_OK;
    }
    /* floating and scaled */
    double d;
    if (v->type == TV_JSON_STRING) {
        if (!java_parse_double(txt, tlen, &d)) {
            snprintf(reason, rcap, "For input string: \"%.*s\"", (int)TV_MIN(tlen, 200), txt);
            return TROVE_ENUMBERFORMAT;
        }
    } else {
        d = tv_json_as_double(v);
    }
    if (t == TV_FT_FLOAT || t == TV_FT_HALF_FLOAT) d = (double)(float)d;
    if (t == TV_FT_HALF_FLOAT) d = round_half((float)d);
    if (!isfinite(d)) {
        char tmp[40];
        tv_fmt_double(d, tmp);
        if (isnan(d)) snprintf(tmp, sizeof tmp, "NaN");
        else snprintf(tmp, sizeof tmp, d > 0 ? "Infinity" : "-Infinity");
        snprintf(reason, rcap, t == TV_FT_SCALED_FLOAT ? "[%s] only supports finite values, but got [%s]"
                                                       : "[%s] supports only finite values, but got [%s]",
                 tv_field_type_name(t), tmp);
        return TROVE_EARG;
    }
    if (t == TV_FT_SCALED_FLOAT) {
        bool of;
        double r = java_round_scaled(d * f->scaling_factor, &of);
        *out = r >= 9223372036854775807.0 ? INT64_MAX : (int64_t)r;
        return TROVE_OK;
    }
    *out = tv_double_to_sortable(d == 0 ? d : d);
    return TROVE_OK;
}

/* ------------------------------------------------------------- leaf values */

static tv_status index_value(dctx *c, const tv_field *f, const tv_json *v);

static tv_status push_token(dctx *c, acc *x, const char *term, uint32_t len, uint32_t pos,
                            uint32_t end16) {
    tv_token t = {.term = term, .term_len = len, .position = pos, .start = 0, .end = len,
                  .start16 = 0, .end16 = end16, .type = TV_TOK_WORD};
    if (tv_vec_push(&x->toks, t)) return oom(c);
    return TROVE_OK;
}

/* Jackson's parser.text() on a scalar, as OpenSearch's field mappers read
 * values: a string's bytes, a number's source text, and (when allow_bool)
 * "true"/"false". False for anything else; no_text_reason() then gives
 * OpenSearch's message for it. */
static bool scalar_text(const tv_json *v, bool allow_bool, const char **s, size_t *n) {
    if (v->type == TV_JSON_STRING) {
        *s = v->v.s;
        *n = v->len;
    } else if (tv_json_is_number(v) && v->raw) {
        *s = v->raw;
        *n = v->raw_len;
    } else if (allow_bool && (v->type == TV_JSON_TRUE || v->type == TV_JSON_FALSE)) {
        *s = v->type == TV_JSON_TRUE ? "true" : "false";
        *n = strlen(*s);
    } else {
        return false;
    }
    return true;
}

static const char *no_text_reason(const tv_json *v, bool allow_bool) {
    if (v->type == TV_JSON_OBJECT) return "Can't get text on a START_OBJECT";
    if (allow_bool || v->type == TV_JSON_ARRAY) return "Can't get text on a START_ARRAY";
    return "Can't get text on a VALUE_BOOLEAN";
}

static tv_status text_value(dctx *c, const tv_field *f, const tv_json *v, acc *x) {
    const char *s;
    size_t n;
    if (!scalar_text(v, true, &s, &n)) return field_error(c, f, v, TROVE_EILLEGALSTATE, no_text_reason(v, true));
    if (!f->index) {
        x->any = true;
        return TROVE_OK;
    }
    uint32_t offset = x->values ? x->next_pos + f->position_increment_gap : 0;
    tv_tokens toks;
    tv_status st = tv_analyze(f->analyzer, c->a, s, n, offset, &toks);
    if (st) return c->st = tv_error_set(c->err, st, "%s", trove_status_message(st));
    uint32_t prev = UINT32_MAX;
    for (size_t i = 0; i < toks.len; i++) {
        if (tv_vec_push(&x->toks, toks.items[i])) return oom(c);
        /* Lucene's FieldInvertState: overlapping tokens (increment 0) are
         * counted in numOverlap and discounted from the norm length */
        if (toks.items[i].position != prev) x->length++;
        prev = toks.items[i].position;
    }
    x->next_pos = toks.end_position;
    x->values++;
    x->any = true;
    return TROVE_OK;
}

static tv_status keyword_value(dctx *c, const tv_field *f, const tv_json *v, acc *x) {
    const char *s;
    size_t n;
    if (scalar_text(v, true, &s, &n)) {
        /* as read */
    } else if (tv_json_is_number(v)) { /* a number built without source text */
        char tmp[40];
        n = tv_fmt_double(tv_json_as_double(v), tmp);
        s = tv_arena_strndup(c->a, tmp, n);
        if (!s) return oom(c);
    } else {
        return field_error(c, f, v, TROVE_EILLEGALSTATE, no_text_reason(v, true));
    }
    x->any = true;
    /* ignore_above counts characters as Java does (UTF-16 units) */
    if (f->ignore_above >= 0 && tv_utf16_len(s, n) > (size_t)f->ignore_above) return TROVE_OK;
    if (f->normalizer) {
        tv_tokens toks;
        tv_status st = tv_analyze(f->normalizer, c->a, s, n, 0, &toks);
        if (st) return c->st = tv_error_set(c->err, st, "%s", trove_status_message(st));
        if (toks.len) {
            s = toks.items[0].term;
            n = toks.items[0].term_len;
        } else {
            s = "";
            n = 0;
        }
    } else {
        s = tv_arena_memdup(c->a, s, n);
        if (!s) return oom(c);
    }
    if (n > 32766)
        return field_error(c, f, v, TROVE_EARG, "Document contains at least one immense term");
    /* a doc-values-only keyword is searchable too (OpenSearch 3 queries its
     * doc values, constant-scored): its terms are indexed, the query layer
     * scores them as a constant (tv_q_term) */
    if ((f->index || f->doc_values) && push_token(c, x, s, (uint32_t)n, x->values, (uint32_t)tv_utf16_len(s, n)))
        return c->st;
    if (f->doc_values) {
        if (tv_vec_push(&x->keys, s) || tv_vec_push(&x->key_lens, (uint32_t)n)) return oom(c);
    }
    x->values++;
    x->length++;
    return TROVE_OK;
}

static tv_status num_push(dctx *c, acc *x, int64_t v) {
    x->any = true;
    x->values++;
    if (tv_vec_push(&x->nums, v)) return oom(c);
    return TROVE_OK;
}

static tv_status boolean_value(dctx *c, const tv_field *f, const tv_json *v, acc *x) {
    int b = -1;
    if (v->type == TV_JSON_TRUE) b = 1;
    else if (v->type == TV_JSON_FALSE) b = 0;
    else if (v->type == TV_JSON_STRING) {
        if (tv_streq(v->v.s, v->len, "true")) b = 1;
        else if (tv_streq(v->v.s, v->len, "false") || v->len == 0) b = 0;
    }
    if (b < 0) {
        tv_buf p;
        tv_buf_init(&p);
        preview(v, &p);
        char reason[600];
        snprintf(reason, sizeof reason,
                 "Failed to parse value [%s] as only [true] or [false] are allowed.",
                 p.data ? p.data : "");
        tv_buf_fini(&p);
        return field_error(c, f, v, TROVE_EARG, reason);
    }
    if ((f->index || f->doc_values) && push_token(c, x, b ? "T" : "F", 1, x->values, 1)) return c->st;
    x->length++;
    return num_push(c, x, b);
}

/* A date or date_nanos value: a string, or a number read from its source
 * text (epoch formats), parsed with the field's format into millis or nanos. */
static tv_status date_like_value(dctx *c, const tv_field *f, const tv_json *v, acc *x, bool nanos) {
    const char *s;
    size_t n;
    if (!scalar_text(v, false, &s, &n)) return field_error(c, f, v, TROVE_EILLEGALSTATE, no_text_reason(v, false));
    int64_t t;
    tv_error de;
    tv_error_clear(&de);
    tv_status st = nanos ? tv_date_parse_nanos(f->format, s, n, &t, &de) : tv_date_parse(f->format, s, n, &t, &de);
    if (st) {
        if (f->ignore_malformed) return TROVE_OK;
        return field_error(c, f, v, TROVE_EARG, de.reason);
    }
    return num_push(c, x, t);
}

static tv_status date_value(dctx *c, const tv_field *f, const tv_json *v, acc *x) {
    return date_like_value(c, f, v, x, false);
}

/* ------------------------------------------------------------- binary */

/* Jackson's Base64Variant._reportInvalidBase64 wording. */
static void base64_char_error(char *reason, size_t rcap, unsigned char ch, int bindex) {
    if (ch <= ' ')
        snprintf(reason, rcap,
                 "Illegal white space character (code 0x%x) as character #%d of 4-char base64 "
                 "unit: can only used between units",
                 ch, bindex + 1);
    else if (ch == '=')
        snprintf(reason, rcap,
                 "Unexpected padding character ('=') as character #%d of 4-char base64 unit: "
                 "padding only legal as 3rd or 4th character",
                 bindex + 1);
    else if (ch == 0x7f || ch >= 0x80)
        snprintf(reason, rcap, "Illegal character (code 0x%x) in base64 content", ch);
    else
        snprintf(reason, rcap, "Illegal character '%c' (code 0x%x) in base64 content", ch, ch);
}

static int b64val(unsigned char ch) {
    if (ch >= 'A' && ch <= 'Z') return ch - 'A';
    if (ch >= 'a' && ch <= 'z') return ch - 'a' + 26;
    if (ch >= '0' && ch <= '9') return ch - '0' + 52;
    if (ch == '+') return 62;
    if (ch == '/') return 63;
    return -1;
}

/*
 * Decodes base64 as Jackson's getBinaryValue does with its default variant
 * (MIME-NO-LINEFEEDS, padding required): whitespace is skipped between
 * 4-character units only, '=' pads the 3rd/4th character, a missing pad at
 * the end is an error. Returns the decoded length, or -1 with reason set.
 */
static long base64_decode(const char *s, size_t n, uint8_t *out, char *reason, size_t rcap) {
    static const char prefix[] = "Failed to decode VALUE_STRING as base64 (MIME-NO-LINEFEEDS): ";
    char why[300];
    size_t i = 0, o = 0;
    for (;;) {
        while (i < n && (unsigned char)s[i] <= ' ') i++;
        if (i >= n) return (long)o;
        int q[4];
        int k;
        for (k = 0; k < 4; k++) {
            if (i >= n) {
                if (k == 0) return (long)o;
                snprintf(reason, rcap,
                         "%sUnexpected end of base64-encoded String: base64 variant "
                         "'MIME-NO-LINEFEEDS' expects padding (one or more '=' characters) at the "
                         "end. This Base64Variant might have been incorrectly configured",
                         prefix);
                return -1;
            }
            unsigned char ch = (unsigned char)s[i++];
            int val = b64val(ch);
            if (val < 0) {
                if (ch == '=' && k >= 2) {
                    /* "xx==" or "xxx=" */
                    if (k == 2) {
                        if (i >= n || s[i] != '=') {
                            if (i >= n)
                                snprintf(why, sizeof why,
                                         "Unexpected end of base64-encoded String: base64 variant "
                                         "'MIME-NO-LINEFEEDS' expects padding (one or more '=' "
                                         "characters) at the end. This Base64Variant might have "
                                         "been incorrectly configured");
                            else
                                snprintf(why, sizeof why,
                                         "Illegal character '%c' (code 0x%x) in base64 content: "
                                         "expected padding character '='",
                                         s[i], (unsigned char)s[i]);
                            snprintf(reason, rcap, "%s%s", prefix, why);
                            return -1;
                        }
                        i++;
                        out[o++] = (uint8_t)(q[0] << 2 | q[1] >> 4);
                    } else {
                        out[o++] = (uint8_t)(q[0] << 2 | q[1] >> 4);
                        out[o++] = (uint8_t)((q[1] & 15) << 4 | q[2] >> 2);
                    }
                    break;
                }
                base64_char_error(why, sizeof why, ch, k);
                snprintf(reason, rcap, "%s%s", prefix, why);
                return -1;
            }
            q[k] = val;
        }
        if (k == 4) {
            out[o++] = (uint8_t)(q[0] << 2 | q[1] >> 4);
            out[o++] = (uint8_t)((q[1] & 15) << 4 | q[2] >> 2);
            out[o++] = (uint8_t)((q[2] & 3) << 6 | q[3]);
        }
    }
}

static tv_status binary_value(dctx *c, const tv_field *f, const tv_json *v, acc *x) {
    char reason[600];
    if (v->type != TV_JSON_STRING) {
        snprintf(reason, sizeof reason,
                 "Current token (%s) not VALUE_STRING or VALUE_EMBEDDED_OBJECT, can not access as "
                 "binary",
                 v->type == TV_JSON_TRUE    ? "VALUE_TRUE"
                 : v->type == TV_JSON_FALSE ? "VALUE_FALSE"
                 : v->type == TV_JSON_DOUBLE ? "VALUE_NUMBER_FLOAT"
                 : v->type == TV_JSON_OBJECT ? "START_OBJECT"
                                             : "VALUE_NUMBER_INT");
        return field_error(c, f, v, TROVE_EJSON, reason);
    }
    uint8_t *bytes = tv_arena_alloc(c->a, v->len / 4 * 3 + 3);
    if (!bytes) return oom(c);
    long n = base64_decode(v->v.s, v->len, bytes, reason, sizeof reason);
    if (n < 0) return field_error(c, f, v, TROVE_EJSON, reason);
    x->any = true;
    x->values++;
    if (f->doc_values) {
        if (tv_vec_push(&x->keys, (const char *)bytes) || tv_vec_push(&x->key_lens, (uint32_t)n))
            return oom(c);
    } else if (x->toks.len == 0) {
        /* presence only (what _field_names gives OpenSearch's exists) */
        if (push_token(c, x, "", 0, 0, 0)) return c->st;
    }
    return TROVE_OK;
}

/* ------------------------------------------------------------- ip */

static tv_status ip_value(dctx *c, const tv_field *f, const tv_json *v, acc *x) {
    const char *s;
    size_t n;
    if (!scalar_text(v, true, &s, &n))
        return field_error(c, f, v, TROVE_EILLEGALSTATE, "Can't get text on a START_ARRAY");
    uint8_t *ip = tv_arena_alloc(c->a, 16);
    if (!ip) return oom(c);
    if (!tv_ip_parse(s, n, ip)) {
        if (f->ignore_malformed) return TROVE_OK;
        char reason[600];
        snprintf(reason, sizeof reason, "'%.*s' is not an IP string literal.", (int)TV_MIN(n, 400), s);
        return field_error(c, f, v, TROVE_EARG, reason);
    }
    x->any = true;
    if ((f->index || f->doc_values) && push_token(c, x, (const char *)ip, 16, x->values, 16)) return c->st;
    if (f->doc_values) {
        if (tv_vec_push(&x->keys, (const char *)ip) || tv_vec_push(&x->key_lens, 16u)) return oom(c);
    }
    x->values++;
    x->length++;
    return TROVE_OK;
}

/* ------------------------------------------------------------- geo_point */

static bool geohash_decode(const char *s, size_t n, double *lat, double *lon) {
    static const char b32[] = "0123456789bcdefghjkmnpqrstuvwxyz";
    if (n == 0 || n > 12) return false;
    double la0 = -90, la1 = 90, lo0 = -180, lo1 = 180;
    bool even = true;
    for (size_t i = 0; i < n; i++) {
        const char *p = memchr(b32, s[i], 32);
        if (!p || !s[i]) return false;
        int cd = (int)(p - b32);
        for (int b = 4; b >= 0; b--) {
            int bit = (cd >> b) & 1;
            if (even) {
                double mid = (lo0 + lo1) / 2;
                if (bit) lo0 = mid;
                else lo1 = mid;
            } else {
                double mid = (la0 + la1) / 2;
                if (bit) la0 = mid;
                else la1 = mid;
            }
            even = !even;
        }
    }
    *lat = (la0 + la1) / 2;
    *lon = (lo0 + lo1) / 2;
    return true;
}

static bool num_text(const tv_json *v, double *out) {
    if (tv_json_is_number(v)) {
        *out = tv_json_as_double(v);
        return true;
    }
    if (v->type == TV_JSON_STRING) return java_parse_double(v->v.s, v->len, out);
    return false;
}

/* Parses one geo point; reason filled on failure. */
static bool geo_parse(const tv_field *f, const tv_json *v, double *lat, double *lon, char *reason,
                      size_t rcap) {
    const mnode *nd = tv_mnode_of(f);
    bool ignore_z = !nd->p[P_IGNORE_Z] || nd->p[P_IGNORE_Z]->type == TV_JSON_TRUE;
    double z = 0;
    bool have_z = false;
    if (v->type == TV_JSON_ARRAY) {
        if (v->len < 2 || !num_text(&v->v.items[0], lon) || !num_text(&v->v.items[1], lat) ||
            v->len > 3) {
            snprintf(reason, rcap, v->len > 3 ? "[geo_point] field type does not accept more than 3 values"
                                              : "[geo_point] field type should not have more than 2 numeric values");
            if (v->len < 2) snprintf(reason, rcap, "Invalid geopoint [%u] values", v->len);
            return false;
        }
        if (v->len == 3) have_z = num_text(&v->v.items[2], &z);
    } else if (v->type == TV_JSON_OBJECT) {
        const tv_json *la = tv_json_get(v, "lat"), *lo = tv_json_get(v, "lon");
        const tv_json *ty = tv_json_get(v, "type"), *co = tv_json_get(v, "coordinates");
        if (ty && co && co->type == TV_JSON_ARRAY)
            return geo_parse(f, co, lat, lon, reason, rcap);
        const tv_json *gh = tv_json_get(v, "geohash");
        if (gh && gh->type == TV_JSON_STRING) {
            if (!geohash_decode(gh->v.s, gh->len, lat, lon)) {
                snprintf(reason, rcap, "unsupported symbol in geohash [%.*s]", (int)TV_MIN(gh->len, 100), gh->v.s);
                return false;
            }
            return true;
        }
        if (!la || !num_text(la, lat)) {
            snprintf(reason, rcap, "field [lat] missing");
            return false;
        }
        if (!lo || !num_text(lo, lon)) {
            snprintf(reason, rcap, "field [lon] missing");
            return false;
        }
        const tv_json *zz = tv_json_get(v, "z");
        if (zz) have_z = num_text(zz, &z);
    } else if (v->type == TV_JSON_STRING) {
        const char *s = v->v.s;
        size_t n = v->len;
        const char *comma = memchr(s, ',', n);
        if (n >= 5 && (memcmp(s, "POINT", 5) == 0 || memcmp(s, "point", 5) == 0)) {
            char tmp[128];
            size_t l = TV_MIN(n, sizeof tmp - 1);
            memcpy(tmp, s, l);
            tmp[l] = '\0';
            double a, b;
            if (sscanf(tmp + 5, " ( %lf %lf )", &a, &b) != 2) {
                snprintf(reason, rcap, "Invalid WKT point [%.*s]", (int)TV_MIN(n, 100), s);
                return false;
            }
            *lon = a;
            *lat = b;
        } else if (comma) {
            const char *second = comma + 1;
            size_t l2 = n - (size_t)(second - s);
            const char *third = memchr(second, ',', l2);
            if (third) l2 = (size_t)(third - second);
            if (!java_parse_double(s, (size_t)(comma - s), lat) ||
                !java_parse_double(second, l2, lon)) {
                snprintf(reason, rcap, "latitude must be a number");
                return false;
            }
            if (third) have_z = java_parse_double(third + 1, n - (size_t)(third + 1 - s), &z);
        } else if (!geohash_decode(s, n, lat, lon)) {
            snprintf(reason, rcap, "unsupported symbol [%c] in geohash [%.*s]", n ? s[0] : ' ',
                     (int)TV_MIN(n, 100), s);
            return false;
        }
    } else {
        snprintf(reason, rcap, "geo_point expected");
        return false;
    }
    if (have_z && !ignore_z) {
        char tmp[40];
        tv_fmt_double(z, tmp);
        snprintf(reason, rcap,
                 "Exception parsing coordinates: found Z value [%s] but [ignore_z_value] parameter "
                 "is [false]",
                 tmp);
        return false;
    }
    char tmp[40];
    if (isnan(*lat) || *lat < -90 || *lat > 90) {
        tv_fmt_double(*lat, tmp);
        snprintf(reason, rcap, "illegal latitude value [%s] for %s", tmp, f->path);
        return false;
    }
    if (isnan(*lon) || *lon < -180 || *lon > 180) {
        tv_fmt_double(*lon, tmp);
        snprintf(reason, rcap, "illegal longitude value [%s] for %s", tmp, f->path);
        return false;
    }
    return true;
}

static tv_status geo_value(dctx *c, const tv_field *f, const tv_json *v, acc *x) {
    double lat, lon;
    char reason[600];
    if (!geo_parse(f, v, &lat, &lon, reason, sizeof reason)) {
        if (f->ignore_malformed) return TROVE_OK;
        return field_error(c, f, v, TROVE_EARG, reason);
    }
    return num_push(c, x, tv_geo_encode(lat, lon));
}

/* ------------------------------------------------------------- unsigned_long */

/* OpenSearch's Numbers.toUnsignedLongExact over a JSON value: integers in
 * [0, 2^64), decimal strings and fractions truncated when coerce allows. */
static tv_status unsigned_value(const tv_field *f, const tv_json *v, uint64_t *out, char *reason,
                                size_t rcap) {
    const char *txt = v->type == TV_JSON_STRING ? v->v.s : v->raw;
    size_t tlen = v->type == TV_JSON_STRING ? v->len : v->raw_len;
    if (!txt) txt = "", tlen = 0;
    if (v->type == TV_JSON_TRUE || v->type == TV_JSON_FALSE || v->type == TV_JSON_OBJECT ||
        v->type == TV_JSON_ARRAY) {
        snprintf(reason, rcap, "Current token (%s) not numeric, can not use numeric value accessors",
                 v->type == TV_JSON_TRUE    ? "VALUE_TRUE"
                 : v->type == TV_JSON_FALSE ? "VALUE_FALSE"
                 : v->type == TV_JSON_OBJECT ? "START_OBJECT"
                                             : "START_ARRAY");
        return TROVE_EJSON;
    }
    if (v->type == TV_JSON_STRING && !f->coerce) {
        snprintf(reason, rcap, "BigInteger value passed as String");
        return TROVE_EARG;
    }
    /* trim, sign, digits, optional fraction, optional exponent */
    size_t i = 0, n = tlen;
    while (i < n && (unsigned char)txt[i] <= ' ') i++;
    while (n > i && (unsigned char)txt[n - 1] <= ' ') n--;
    bool neg = false;
    if (i < n && (txt[i] == '+' || txt[i] == '-')) neg = txt[i++] == '-';
    size_t ds = i;
    char digits[64];
    size_t nd = 0;
    bool overflow = false;
    while (i < n && txt[i] >= '0' && txt[i] <= '9') {
        if (nd < sizeof digits) digits[nd++] = txt[i];
        else overflow = true;
        i++;
    }
    size_t int_digits = nd;
    bool frac_nonzero = false;
    bool had_point = false;
    if (i < n && txt[i] == '.') {
        had_point = true;
        i++;
        while (i < n && txt[i] >= '0' && txt[i] <= '9') {
            if (nd < sizeof digits) digits[nd++] = txt[i];
            frac_nonzero |= txt[i] != '0';
            i++;
        }
    }
    long exp = 0;
    if (i < n && (txt[i] == 'e' || txt[i] == 'E') && i > ds) {
        i++;
        bool eneg = false;
        if (i < n && (txt[i] == '+' || txt[i] == '-')) eneg = txt[i++] == '-';
        size_t es = i;
        while (i < n && txt[i] >= '0' && txt[i] <= '9' && exp < 1000) exp = exp * 10 + (txt[i++] - '0');
        if (i == es) nd = 0;
        if (eneg) exp = -exp;
    }
    if (i != n || nd == 0 || (i == ds + (had_point ? 1 : 0))) {
        snprintf(reason, rcap, "For input string: \"%.*s\"", (int)TV_MIN(tlen, 200), txt);
        return TROVE_ENUMBERFORMAT;
    }
    /* value = digits * 10^(exp - (nd - int_digits)); keep the integer part */
    long point = (long)int_digits + exp; /* digits before the decimal point */
    uint64_t r = 0;
    bool big = overflow;
    bool zero = true;
    for (size_t k = 0; k < nd; k++) {
        if (digits[k] != '0') zero = false;
        if ((long)k < point) {
            uint64_t d = (uint64_t)(digits[k] - '0');
            if (r > (UINT64_MAX - d) / 10) big = true;
            else r = r * 10 + d;
        } else if (digits[k] != '0') {
            frac_nonzero = true;
        }
    }
    for (long k = (long)nd; k < point && !big && !zero; k++) {
        if (r > UINT64_MAX / 10) big = true;
        else r *= 10;
    }
    if (big || (neg && !zero)) {
        snprintf(reason, rcap, "Value [%.*s] is out of range for an unsigned long",
                 (int)TV_MIN(tlen, 200), txt);
        return TROVE_EARG;
    }
    if (frac_nonzero && !f->coerce) {
        snprintf(reason, rcap, "Value [%.*s] has a decimal part", (int)TV_MIN(tlen, 200), txt);
        return TROVE_EARG;
    }
    *out = r;
    return TROVE_OK;
}

/* ------------------------------------------------------------- date_nanos */

static tv_status date_nanos_value(dctx *c, const tv_field *f, const tv_json *v, acc *x) {
    return date_like_value(c, f, v, x, true);
}

/* ------------------------------------------------------------- aliases */

static const tv_json *node_param(const tv_field *f, mparam p) { return tv_mnode_of(f)->p[p]; }

/* ------------------------------------------------------------- ranges */

/* The IP address after (or before) ip, saturating (InetAddressPoint.nextUp). */
static void ip_next(uint8_t ip[16], bool up) {
    for (int i = 15; i >= 0; i--) {
        if (up ? ip[i] != 0xFF : ip[i] != 0) {
            ip[i] = (uint8_t)(up ? ip[i] + 1 : ip[i] - 1);
            for (int j = i + 1; j < 16; j++) ip[j] = up ? 0 : 0xFF;
            return;
        }
    }
}

/* A bound as Java prints it in IntRange/LongRange/FloatRange/DoubleRange's
 * "min value (x) is greater than max value (y)". */
static void range_bound_text(const tv_field *f, const uint8_t *b, char *out, size_t cap) {
    if (f->range_type == TV_FT_IP) {
        char t[TV_IP_TEXT_MAX];
        tv_ip_format(b, t);
        snprintf(out, cap, "/%s", t);
        return;
    }
    int64_t s = tv_range_decode_bound(b);
    if (f->range_type == TV_FT_FLOAT) tv_fmt_float((float)tv_sortable_to_double(s), out);
    else if (f->range_type == TV_FT_DOUBLE) tv_fmt_double(tv_sortable_to_double(s), out);
    else snprintf(out, cap, "%lld", (long long)s);
}

/* One bound's value (RangeType.parse): *bound receives its encoding. */
static tv_status range_bound(const tv_field *f, const tv_json *v, uint8_t *bound, char *reason, size_t rcap) {
    tv_field_type rt = f->range_type;
    if (rt == TV_FT_IP) {
        const char *s;
        size_t n;
        if (!scalar_text(v, true, &s, &n)) {
            snprintf(reason, rcap, "%s", no_text_reason(v, true));
            return TROVE_EILLEGALSTATE;
        }
        if (!tv_ip_parse(s, n, bound)) {
            snprintf(reason, rcap, "'%.*s' is not an IP string literal.", (int)TV_MIN(n, 400), s);
            return TROVE_EARG;
        }
        return TROVE_OK;
    }
    int64_t x;
    if (rt == TV_FT_DATE) {
        const char *s;
        size_t n;
        if (!scalar_text(v, false, &s, &n)) {
            snprintf(reason, rcap, "%s", no_text_reason(v, false));
            return TROVE_EILLEGALSTATE;
        }
        tv_error de;
        tv_error_clear(&de);
        if (tv_date_parse(f->format, s, n, &x, &de)) {
            snprintf(reason, rcap, "%s", de.reason);
            return TROVE_EARG;
        }
    } else {
        tv_field nf = *f; /* NumberType.parse of the bounds' type */
        nf.type = rt;
        tv_status st = number_value(&nf, v, &x, reason, rcap);
        if (st) return st;
    }
    tv_range_encode_bound(rt, x, NULL, bound);
    return TROVE_OK;
}

/* A range field's value (RangeFieldMapper.parseCreateField): an object of
 * gt/gte/lt/lte, or for ip_range a CIDR string. Stored with inclusive
 * bounds (range.c). */
static tv_status range_value(dctx *c, const tv_field *f, const tv_json *v, acc *x) {
    size_t w = tv_range_width(f->range_type);
    uint8_t *r = tv_arena_alloc(c->a, 2 * w);
    if (!r) return oom(c);
    int64_t mn, mx;
    tv_range_limits(f->range_type, &mn, &mx);
    uint8_t ipmin[16], ipmax[16];
    memset(ipmin, 0, 16);
    memset(ipmax, 0xFF, 16);
    tv_range_encode_bound(f->range_type, mn, ipmin, r);
    tv_range_encode_bound(f->range_type, mx, ipmax, r + w);
    char reason[600];
    if (v->type == TV_JSON_STRING && f->range_type == TV_FT_IP) {
        if (!tv_ip_parse_cidr(v->v.s, v->len, r, r + w)) {
            if (f->ignore_malformed) return TROVE_OK;
            snprintf(reason, sizeof reason, "Expected [ip/prefix] but was [%.*s]", (int)TV_MIN(v->len, 400), v->v.s);
            return field_error(c, f, v, TROVE_EARG, reason);
        }
    } else if (v->type != TV_JSON_OBJECT) {
        const char *name = f->path + f->path_len;
        while (name > f->path && name[-1] != '.') name--;
        snprintf(reason, sizeof reason, "error parsing field [%s], expected an object but got %s", f->path, name);
        return field_error(c, f, v, TROVE_EMAPPER, reason);
    } else {
        for (uint32_t i = 0; i < v->len; i++) {
            const tv_json_member *m = &v->v.members[i];
            bool lower = tv_streq(m->key, m->key_len, "gt") || tv_streq(m->key, m->key_len, "gte");
            bool upper = tv_streq(m->key, m->key_len, "lt") || tv_streq(m->key, m->key_len, "lte");
            if (!lower && !upper) {
                snprintf(reason, sizeof reason, "error parsing field [%s], with unknown parameter [%.*s]", f->path,
                         (int)m->key_len, m->key);
                return field_error(c, f, &m->val, TROVE_EMAPPER, reason);
            }
            if (m->val.type == TV_JSON_NULL) continue;
            uint8_t *b = lower ? r : r + w;
            tv_status st = range_bound(f, &m->val, b, reason, sizeof reason);
            if (st) {
                /* ignore_malformed catches IllegalArgumentException only */
                if (f->ignore_malformed && (st == TROVE_EARG || st == TROVE_ENUMBERFORMAT)) return TROVE_OK;
                return field_error(c, f, &m->val, st, reason);
            }
            if (m->key_len == 2) { /* gt, lt: the next value inside */
                if (f->range_type == TV_FT_IP) ip_next(b, lower);
                else tv_range_encode_bound(f->range_type, tv_range_next(f->range_type, tv_range_decode_bound(b), lower), NULL, b);
            }
        }
    }
    if (f->index && memcmp(r, r + w, w) > 0) {
        char lo[64], hi[64];
        range_bound_text(f, r, lo, sizeof lo);
        range_bound_text(f, r + w, hi, sizeof hi);
        snprintf(reason, sizeof reason, "min value (%s) is greater than max value (%s)", lo, hi);
        return field_error(c, f, v, TROVE_EARG, reason);
    }
    x->any = true;
    if (f->index && push_token(c, x, (const char *)r, (uint32_t)(2 * w), x->values, 1)) return c->st;
    if (f->doc_values) {
        if (tv_vec_push(&x->keys, (const char *)r) || tv_vec_push(&x->key_lens, (uint32_t)(2 * w))) return oom(c);
    }
    x->values++;
    x->length++;
    return TROVE_OK;
}

static bool is_decl(const tv_field *f, const char *name) {
    const char *d = tv_mnode_of(f)->decl_type;
    return d && strcmp(d, name) == 0;
}

/* token_count: the number of tokens (positions, with position increments)
 * the field's analyzer produces for the value. */
static tv_status token_count_value(dctx *c, const tv_field *f, const tv_json *v, acc *x) {
    const char *s;
    size_t n;
    if (!scalar_text(v, true, &s, &n)) return field_error(c, f, v, TROVE_EILLEGALSTATE, no_text_reason(v, true));
    tv_tokens toks;
    tv_status st = tv_analyze(f->analyzer, c->a, s, n, 0, &toks);
    if (st) return c->st = tv_error_set(c->err, st, "%s", trove_status_message(st));
    const tv_json *epi = node_param(f, P_ENABLE_POS_INC);
    bool pos_inc = !epi || epi->type == TV_JSON_TRUE;
    int64_t count = pos_inc ? (int64_t)toks.end_position : (int64_t)toks.len;
    return num_push(c, x, count);
}

static tv_status leaf_value(dctx *c, const tv_field *f, const tv_json *v) {
    acc *x = acc_of(c, f);
    if (!x) return oom(c);
    if (c->derived && tv_vec_push(&x->raw, v)) return oom(c);
    switch (f->type) {
    case TV_FT_TEXT: case TV_FT_MATCH_ONLY_TEXT: return text_value(c, f, v, x);
    case TV_FT_KEYWORD:
        if (is_decl(f, "constant_keyword")) {
            const tv_json *want = node_param(f, P_VALUE);
            tv_buf b;
            tv_buf_init(&b);
            if (v->type == TV_JSON_STRING) tv_buf_append(&b, v->v.s, v->len);
            else if (tv_json_is_number(v) && v->raw) tv_buf_append(&b, v->raw, v->raw_len);
            else tv_json_to_java(v, &b);
            bool same = want && b.len == want->len && (b.len == 0 || memcmp(b.data, want->v.s, b.len) == 0);
            tv_buf_fini(&b);
            if (v->type == TV_JSON_OBJECT || v->type == TV_JSON_ARRAY) same = false;
            if (!same) {
                char reason[600];
                snprintf(reason, sizeof reason,
                         "constant keyword field [%s] must have a value of [%.*s]", f->path,
                         want ? (int)want->len : 0, want ? want->v.s : "");
                return field_error(c, f, v, TROVE_EARG, reason);
            }
            if (x->values) return TROVE_OK; /* one value per doc is enough */
        }
        return keyword_value(c, f, v, x);
    case TV_FT_BOOLEAN: return boolean_value(c, f, v, x);
    case TV_FT_DATE: return date_value(c, f, v, x);
    case TV_FT_DATE_NANOS: return date_nanos_value(c, f, v, x);
    case TV_FT_BINARY: return binary_value(c, f, v, x);
    case TV_FT_IP: return ip_value(c, f, v, x);
    case TV_FT_RANGE: return range_value(c, f, v, x);
    case TV_FT_GEO_POINT: return geo_value(c, f, v, x);
    case TV_FT_UNSIGNED_LONG: {
        uint64_t u;
        char reason[600];
        tv_status st = unsigned_value(f, v, &u, reason, sizeof reason);
        if (st) {
            if (f->ignore_malformed) return TROVE_OK;
            return field_error(c, f, v, st, reason);
        }
        return num_push(c, x, tv_unsigned_to_sortable(u));
    }
    case TV_FT_INTEGER:
        if (is_decl(f, "token_count")) return token_count_value(c, f, v, x);
        /* fall through */
    default: {
        /* empty strings are null for numbers */
        int64_t out;
        char reason[600];
        tv_status st = number_value(f, v, &out, reason, sizeof reason);
        if (st) {
            if (f->ignore_malformed) return TROVE_OK;
            return field_error(c, f, v, st, reason);
        }
        return num_push(c, x, out);
    }
    }
}

/* One value of a leaf field (arrays flattened), then its multi-fields. */
static tv_status index_value(dctx *c, const tv_field *f, const tv_json *v) {
    if (f->type == TV_FT_GEO_POINT && v->type == TV_JSON_ARRAY && v->len &&
        tv_json_is_number(&v->v.items[0])) {
        /* [lon, lat] is one point, not two values */
        if (leaf_value(c, f, v)) return c->st;
        const mnode *gn = tv_mnode_of(f);
        for (uint32_t i = 0; i < gn->nkids; i++)
            if (index_value(c, &gn->kids[i]->f, v)) return c->st;
        return TROVE_OK;
    }
    if (v->type == TV_JSON_NULL && f->type == TV_FT_KEYWORD && is_decl(f, "constant_keyword")) {
        char reason[300];
        snprintf(reason, sizeof reason, "constant keyword field [%s] must have a value", f->path);
        return field_error(c, f, v, TROVE_EARG, reason);
    }
    if (v->type == TV_JSON_NULL && f->null_value && f->type == TV_FT_INTEGER &&
        is_decl(f, "token_count")) {
        acc *x = acc_of(c, f);
        if (!x) return oom(c);
        int64_t cnt;
        char reason[600];
        if (number_value(f, f->null_value, &cnt, reason, sizeof reason)) return TROVE_OK;
        return num_push(c, x, cnt);
    }
    if (v->type == TV_JSON_ARRAY) {
        for (uint32_t i = 0; i < v->len; i++)
            if (index_value(c, f, &v->v.items[i])) return c->st;
        return TROVE_OK;
    }
    if (v->type == TV_JSON_NULL ||
        (v->type == TV_JSON_STRING && v->len == 0 && tv_field_type_is_numeric(f->type))) {
        if (!f->null_value) return TROVE_OK;
        v = f->null_value;
    }
    if (v->type == TV_JSON_OBJECT && f->type != TV_FT_OBJECT && f->type != TV_FT_GEO_POINT &&
        f->type != TV_FT_RANGE) {
        /* OpenSearch reports objects under a leaf at the leaf */
        tv_buf b;
        tv_buf_init(&b);
        tv_status cause = TROVE_EILLEGALSTATE;
        const char *why = "Can't get text on a START_OBJECT";
        if (tv_field_type_is_numeric(f->type)) {
            cause = TROVE_EJSON;
            why = "Current token (START_OBJECT) not numeric, can not use numeric value accessors";
        }
        tv_buf_fini(&b);
        return field_error(c, f, v, cause, why);
    }
    if (leaf_value(c, f, v)) return c->st;
    const mnode *n = tv_mnode_of(f);
    for (uint32_t i = 0; i < n->nkids; i++)
        if (index_value(c, &n->kids[i]->f, v)) return c->st;
    return TROVE_OK;
}

/* ------------------------------------------------------------- dynamic */

static unode *unode_child(dctx *c, unode *parent, const char *name, size_t len, bool create) {
    unode **pp = &parent->first;
    for (unode *u = parent->first; u; u = u->next) {
        if (u->name_len == len && memcmp(u->name, name, len) == 0) return u;
        pp = &u->next;
    }
    if (!create) return NULL;
    unode *u = tv_arena_calloc(c->a, 1, sizeof *u);
    if (!u) return NULL;
    u->name = tv_arena_strndup(c->a, name, len);
    if (!u->name) return NULL;
    u->name_len = len;
    *pp = u;
    return u;
}

static size_t count_char(const char *s, size_t n, char ch) {
    size_t k = 0;
    for (size_t i = 0; i < n; i++) k += s[i] == ch;
    return k;
}

/* The type dynamic mapping gives a JSON value (NULL: no mapping, as null
 * and empty arrays). For dates, *format receives the matching format when
 * it is not the field default. */
static const char *dynamic_type(dctx *c, const tv_json *v, const char **format) {
    *format = NULL;
    switch (v->type) {
    case TV_JSON_NULL: return NULL;
    case TV_JSON_TRUE: case TV_JSON_FALSE: return "boolean";
    case TV_JSON_INT: case TV_JSON_UINT: return "long";
    case TV_JSON_DOUBLE: return "float";
    case TV_JSON_OBJECT: return "object";
    case TV_JSON_ARRAY:
        for (uint32_t i = 0; i < v->len; i++) {
            const char *t = dynamic_type(c, &v->v.items[i], format);
            if (t) return t;
        }
        return NULL;
    case TV_JSON_STRING: {
        const tv_mapping *m = c->m;
        const char *s = v->v.s;
        size_t n = v->len;
        if (m->date_detection &&
            (count_char(s, n, ':') > 1 || count_char(s, n, '-') > 1 || count_char(s, n, '/') > 1)) {
            static const char *const defaults[] = {TV_DATE_DEFAULT_FORMAT,
                                                   "yyyy/MM/dd HH:mm:ss||yyyy/MM/dd||epoch_millis"};
            const tv_json *fm = m->dynamic_date_formats;
            size_t nf = fm ? fm->len : 2;
            for (size_t i = 0; i < nf; i++) {
                const char *fmt = fm ? tv_arena_strndup(c->a, fm->v.items[i].v.s, fm->v.items[i].len)
                                     : defaults[i];
                int64_t ms;
                if (fmt && tv_date_parse(fmt, s, n, &ms, NULL) == TROVE_OK) {
                    *format = strcmp(fmt, TV_DATE_DEFAULT_FORMAT) == 0 ? NULL : fmt;
                    return "date";
                }
            }
        }
        if (m->numeric_detection) {
            int64_t iv;
            double d;
            if (tv_parse_i64(s, n, &iv)) return "long";
            if (java_parse_double(s, n, &d)) return "float";
        }
        return "text";
    }
    }
    return NULL;
}

static tv_status walk_object(dctx *c, const tv_json *obj, const mnode *node, unode *unew,
                             const char *path, size_t plen, tv_dynamic dyn);
static tv_status walk_nested(dctx *c, const tv_json *obj, const mnode *k, tv_dynamic dyn);
static tv_status copy_to(dctx *c, const mnode *src, const tv_json *v);

static char *join_path(dctx *c, const char *path, size_t plen, const char *name, size_t nlen,
                       size_t *out_len) {
    char *p = tv_arena_alloc(c->a, plen + nlen + 2);
    if (!p) return NULL;
    size_t k = 0;
    if (plen) {
        memcpy(p, path, plen);
        p[plen] = '.';
        k = plen + 1;
    }
    memcpy(p + k, name, nlen);
    p[k + nlen] = '\0';
    *out_len = k + nlen;
    return p;
}

static bool is_metadata_field(const char *k, size_t n) {
    static const char *const names[] = {"_id", "_index", "_source", "_routing", "_ignored",
                                        "_seq_no", "_version", "_primary_term", "_field_names",
                                        "_data_stream_timestamp", "_nested_path", "_doc_count",
                                        "_feature", "_size", "_type", "_uid", "_all",
                                        "_parent", "_timestamp", "_ttl", "_meta"};
    for (size_t i = 0; i < TV_ARRAY_LEN(names); i++)
        if (tv_streq(k, n, names[i])) return true;
    return false;
}

/* The XContentFieldType name dynamic templates match on, for a value whose
 * default dynamic type is `type`. */
static const char *template_match_type(const tv_json *v, const char *type) {
    while (v->type == TV_JSON_ARRAY) {
        const tv_json *first = NULL;
        for (uint32_t i = 0; i < v->len && !first; i++)
            if (v->v.items[i].type != TV_JSON_NULL) first = &v->v.items[i];
        if (!first) return type;
        v = first;
    }
    if (strcmp(type, "text") == 0) return "string";
    if (strcmp(type, "float") == 0) return "double";
    return type; /* object, long, boolean, date */
}

/* The "dynamic" names OpenSearch prints in strict_dynamic_mapping_exception. */
static const char *dynamic_word(tv_dynamic d) {
    return d == TV_DYNAMIC_STRICT_ALLOW_TEMPLATES ? "strict_allow_templates" : "strict";
}

static tv_status strict_error(dctx *c, tv_dynamic dyn, const char *name, size_t nlen,
                              const char *path, size_t plen) {
    return c->st = tv_error_set(c->err, TROVE_ESTRICT,
                                "mapping set to %s, dynamic introduction of [%.*s] within "
                                "[%.*s] is not allowed",
                                dynamic_word(dyn), (int)nlen, name, plen ? (int)plen : 4,
                                plen ? path : "_doc");
}

/* Records an unmapped field in the update tree under parent_u. dyn is the
 * effective dynamic setting of the enclosing object: true, or one of the
 * strict_allow_templates, where only a field that matches a dynamic
 * template is added and the others are refused. */
static tv_status dynamic_field(dctx *c, unode *parent_u, const char *name, size_t nlen,
                               const tv_json *v, const char *path, size_t plen, tv_dynamic dyn) {
    const char *format;
    const char *type = dynamic_type(c, v, &format);
    if (!type) return TROVE_OK;
    if (dyn == TV_DYNAMIC_STRICT_ALLOW_TEMPLATES) {
        unode *seen = unode_child(c, parent_u, name, nlen, false);
        if (!seen || !seen->tmpl) {
            size_t tl;
            char *tp = join_path(c, path, plen, name, nlen, &tl);
            if (!tp) return oom(c);
            if (!tv_mapping_dynamic_template(c->m, tp, tl, name, nlen, template_match_type(v, type),
                                             type, c->a)) {
                return strict_error(c, dyn, name, nlen, path, plen);
            }
        }
    }
    if (c->field_budget >= 0 && !unode_child(c, parent_u, name, nlen, false)) {
        /* a text field brings its keyword multi-field */
        int64_t cost = strcmp(type, "text") == 0 ? 2 : 1;
        if (c->fields_used + cost > c->field_budget) return TROVE_OK; /* stays unmapped */
        c->fields_used += cost;
    }
    unode *u = unode_child(c, parent_u, name, nlen, true);
    if (!u) return oom(c);
    size_t cl;
    char *cp = join_path(c, path, plen, name, nlen, &cl);
    if (!cp) return oom(c);
    if (!u->type) {
        u->type = type;
        u->format = format;
        const tv_json *t = tv_mapping_dynamic_template(c->m, cp, cl, name, nlen,
                                                       template_match_type(v, type), type, c->a);
        if (t) {
            const tv_json *tt = tv_json_get(t, "type");
            u->tmpl = t;
            u->format = NULL;
            if (tt && tt->type == TV_JSON_STRING) {
                char *ts = tv_arena_strndup(c->a, tt->v.s, tt->len);
                if (!ts) return oom(c);
                u->type = ts;
            }
            if (!tt && strcmp(type, "date") == 0 && format && !tv_json_get(t, "format")) u->format = format;
        }
    }
    if (strcmp(u->type, "object") == 0) {
        tv_dynamic kd = dyn; /* a new object inherits its parent's setting */
        if (u->tmpl) {
            const tv_json *en = tv_json_get(u->tmpl, "enabled");
            const tv_json *dy = tv_json_get(u->tmpl, "dynamic");
            if (en && (en->type == TV_JSON_FALSE ||
                       (en->type == TV_JSON_STRING && tv_streq(en->v.s, en->len, "false"))))
                return TROVE_OK;
            if (dy && dy->type == TV_JSON_STRING && tv_streq(dy->v.s, dy->len, "strict"))
                kd = TV_DYNAMIC_STRICT;
            else if (dy && dy->type == TV_JSON_STRING &&
                     tv_streq(dy->v.s, dy->len, "strict_allow_templates"))
                kd = TV_DYNAMIC_STRICT_ALLOW_TEMPLATES;
            else if (dy && (dy->type == TV_JSON_TRUE ||
                            (dy->type == TV_JSON_STRING && tv_streq(dy->v.s, dy->len, "true"))))
                kd = TV_DYNAMIC_TRUE;
            else if (dy && (dy->type == TV_JSON_FALSE ||
                            (dy->type == TV_JSON_STRING && tv_streq(dy->v.s, dy->len, "false"))))
                return TROVE_OK;
        }
        if (v->type == TV_JSON_OBJECT) return walk_object(c, v, NULL, u, cp, cl, kd);
        /* the same new field as an object and as a value in one document
         * ({"a.b": 1, "a": 2}): the dynamic update could not merge */
        if (v->type != TV_JSON_ARRAY)
            return c->st = tv_error_set(c->err, TROVE_EARG,
                                        "can't merge a non object mapping [%s] with an object mapping", cp);
        for (uint32_t i = 0; i < v->len; i++)
            if (v->v.items[i].type == TV_JSON_OBJECT &&
                walk_object(c, &v->v.items[i], NULL, u, cp, cl, kd))
                return c->st;
    }
    return TROVE_OK;
}

/* True when a template's mapping (an object) lists name in its own
 * "properties". */
static bool template_property(const tv_json *tmpl, const char *name, size_t nlen) {
    const tv_json *props = tv_json_get(tmpl, "properties");
    if (!props || props->type != TV_JSON_OBJECT) return false;
    for (uint32_t i = 0; i < props->len; i++)
        if (props->v.members[i].key_len == nlen && memcmp(props->v.members[i].key, name, nlen) == 0)
            return true;
    return false;
}

/* The update node for an existing mapped object at path (creating the
 * chain of object entries from the root). */
static unode *update_for_path(dctx *c, const char *path, size_t plen) {
    if (!c->update) {
        c->update = tv_arena_calloc(c->a, 1, sizeof(unode));
        if (!c->update) return NULL;
        c->update->type = "object";
    }
    unode *u = c->update;
    size_t i = 0;
    while (i < plen) {
        size_t j = i;
        while (j < plen && path[j] != '.') j++;
        u = unode_child(c, u, path + i, j - i, true);
        if (!u) return NULL;
        if (!u->type) {
            u->type = "object";
            u->existing = true;
        }
        i = j + 1;
    }
    return u;
}

/*
 * flat_object (see mapping_int.h): every leaf value below the field is a
 * keyword value of the field itself and of the sub-field of its relative
 * dotted path (rel, built in a scratch buffer while descending). Arrays
 * give several values to the same path; nulls index the null_value when
 * one is set, else nothing. Objects nested deeper than depth_limit fail as
 * OpenSearch reports it.
 */
/* Marks the document as having the flat_object sub-field f.rel, without a
 * term: one sortable 0 in its value list, which makes the segment record
 * the doc for exists queries; keyword queries read only terms and the
 * sorted-set doc values, so they never see it. */
static tv_status flat_mark(dctx *c, const tv_field *f, const char *rel, size_t len) {
    const tv_field *sub = tv_mapping_flat_sub(c->m, f, rel, len);
    if (!sub) return oom(c);
    acc *y = acc_of(c, sub);
    if (!y) return oom(c);
    if (y->nums.len) return TROVE_OK;
    if (tv_vec_push(&y->nums, 0)) return oom(c);
    y->any = true;
    return TROVE_OK;
}

static tv_status flat_value(dctx *c, const tv_field *f, const tv_json *v, tv_buf *rel,
                            uint32_t depth) {
    if (v->type == TV_JSON_ARRAY) {
        for (uint32_t i = 0; i < v->len; i++)
            if (flat_value(c, f, &v->v.items[i], rel, depth)) return c->st;
        return TROVE_OK;
    }
    if (v->type == TV_JSON_OBJECT) {
        const tv_json *dl = node_param(f, P_DEPTH_LIMIT);
        int64_t limit = dl && tv_json_is_number(dl) ? tv_java_d2l(tv_json_as_double(dl)) : 20;
        if ((int64_t)depth + 1 > limit) {
            char reason[600];
            snprintf(reason, sizeof reason,
                     "the depth of flat_object field path [%s] is bigger than maximum depth [%lld]",
                     f->path, (long long)limit);
            return field_error(c, f, v, TROVE_EARG, reason);
        }
        size_t keep = rel->len;
        for (uint32_t i = 0; i < v->len; i++) {
            const tv_json_member *mem = &v->v.members[i];
            rel->len = keep;
            if (keep) tv_buf_putc(rel, '.');
            tv_buf_append(rel, mem->key, mem->key_len);
            if (rel->oom) return oom(c);
            if (flat_value(c, f, &mem->val, rel, depth + 1)) return c->st;
        }
        rel->len = keep;
        return TROVE_OK;
    }
    if (v->type == TV_JSON_NULL) {
        if (!f->null_value) return TROVE_OK;
        v = f->null_value;
    }
    acc *x = acc_of(c, f);
    if (!x) return oom(c);
    if (keyword_value(c, f, v, x)) return c->st;
    if (!rel->len) return TROVE_OK;
    const tv_field *sub = tv_mapping_flat_sub(c->m, f, rel->data, rel->len);
    if (!sub) return oom(c);
    acc *y = acc_of(c, sub);
    if (!y) return oom(c);
    if (keyword_value(c, sub, v, y)) return c->st;
    /* exists on "f.k" finds documents with a value under key k at any
     * depth, and under any object path prefix ("f.a" for "a.b") */
    for (size_t i = 0; i < rel->len; i++) {
        if (rel->data[i] != '.') continue;
        if (flat_mark(c, f, rel->data, i)) return c->st; /* prefix */
    }
    size_t start = 0;
    for (size_t i = 0; i <= rel->len; i++) {
        if (i < rel->len && rel->data[i] != '.') continue;
        if (i > start && (start > 0 || i < rel->len) &&
            flat_mark(c, f, rel->data + start, i - start)) /* one key */
            return c->st;
        start = i + 1;
    }
    return TROVE_OK;
}

/* Handles one member `name: v` of an object at `path` whose mapping node
 * is `node` (NULL inside a dynamically introduced object, whose update
 * node is unew). */
static tv_status walk_member(dctx *c, const char *name, size_t nlen, const tv_json *v,
                             const mnode *node, unode *unew, const char *path, size_t plen,
                             tv_dynamic dyn) {
    if (nlen == 0)
        return c->st = tv_error_set(c->err, TROVE_EARG, "field name cannot be an empty string");
    const char *dot = memchr(name, '.', nlen);
    if (dot) {
        size_t ndots = 0;
        while (ndots < nlen && name[ndots] == '.') ndots++;
        if (ndots == nlen)
            return c->st = tv_error_set(c->err, TROVE_EARG,
                                        "field name cannot contain only the character [.]");
        size_t head = (size_t)(dot - name);
        if (head == 0 || head + 1 == nlen || (dot[1] == '.'))
            return c->st = tv_error_set(c->err, TROVE_EARG,
                                        "object field starting or ending with a [.] makes object "
                                        "resolution ambiguous: [%.*s]",
                                        (int)nlen, name);
        /* {"a.b": v} is {"a": {"b": v}} */
        tv_json_member inner = {.key = dot + 1, .key_len = (uint32_t)(nlen - head - 1), .val = *v};
        tv_json wrapped = {.type = TV_JSON_OBJECT, .len = 1, .v.members = &inner};
        return walk_member(c, name, head, &wrapped, node, unew, path, plen, dyn);
    }
    if (plen == 0 && is_metadata_field(name, nlen))
        return c->st = tv_error_set(c->err, TROVE_EMAPPER,
                                    "Field [%.*s] is a metadata field and cannot be added inside a "
                                    "document. Use the index API request parameters.",
                                    (int)nlen, name);
    const mnode *k = node ? tv_mnode_child(node, name, nlen) : NULL;
    if (k && k->is_alias) {
        /* DocumentParser.parseObjectOrField (an empty array parses nothing) */
        if (v->type == TV_JSON_ARRAY && v->len == 0) return TROVE_OK;
        tv_error_set(c->err, TROVE_EMAPPER, "failed to parse");
        tv_error_cause(c->err, TROVE_EARG, "Cannot write to a field alias [%s].", k->f.path);
        return c->st = TROVE_EMAPPER;
    }
    if (k && k->f.type == TV_FT_OBJECT) {
        tv_dynamic kd = k->dynamic >= 0 ? (tv_dynamic)k->dynamic : dyn;
        if (k->enabled == 0) return TROVE_OK; /* kept in _source only */
        if (v->type == TV_JSON_NULL) return TROVE_OK;
        /* re-walking for include_in_*: a nested object below goes along
         * only when its fields are in its parent's doc (include_in_parent;
         * include_in_root reaches the root by its own walk) */
        if (k->f.nested && c->flatten && !k->f.include_in_parent) return TROVE_OK;
        bool as_doc = k->f.nested && !c->flatten;
        if (v->type == TV_JSON_OBJECT)
            return as_doc ? walk_nested(c, v, k, kd) : walk_object(c, v, k, NULL, k->f.path, k->f.path_len, kd);
        if (v->type == TV_JSON_ARRAY) {
            for (uint32_t i = 0; i < v->len; i++) {
                const tv_json *e = &v->v.items[i];
                if (e->type == TV_JSON_NULL) continue;
                if (e->type != TV_JSON_OBJECT) goto concrete;
                if (as_doc ? walk_nested(c, e, k, kd) : walk_object(c, e, k, NULL, k->f.path, k->f.path_len, kd))
                    return c->st;
            }
            return TROVE_OK;
        }
    concrete:
        return c->st = tv_error_set(c->err, TROVE_EMAPPER,
                                    "object mapping for [%s] tried to parse field [%.*s] as object, "
                                    "but found a concrete value",
                                    k->f.path, (int)nlen, name);
    }
    if (k && tv_field_is_flat_object(&k->f)) {
        tv_buf rel;
        tv_buf_init(&rel);
        tv_status st = flat_value(c, &k->f, v, &rel, 0);
        tv_buf_fini(&rel);
        if (st) return st;
        return k->copy_to ? copy_to(c, k, v) : TROVE_OK;
    }
    if (k) {
        if (index_value(c, &k->f, v)) return c->st;
        return k->copy_to ? copy_to(c, k, v) : TROVE_OK;
    }
    /* unmapped */
    if (unew && unew->tmpl && template_property(unew->tmpl, name, nlen))
        return TROVE_OK; /* mapped by the template's own properties: indexed
                            when the document is parsed again with the update */
    if (dyn == TV_DYNAMIC_STRICT) /* OpenSearch refuses nulls and empty arrays too */
        return strict_error(c, dyn, name, nlen, path, plen);
    if (dyn == TV_DYNAMIC_FALSE) return TROVE_OK;
    const char *fmt_unused;
    if (!dynamic_type(c, v, &fmt_unused)) return TROVE_OK; /* null, [] : no mapping */
    unode *pu = unew ? unew : update_for_path(c, path, plen);
    if (!pu) return oom(c);
    return dynamic_field(c, pu, name, nlen, v, path, plen, dyn);
}

/*
 * copy_to: the value goes to each target as if the document had it at the
 * target's path (DocumentParser.parseCopyFields): mapped leaves index it
 * with their own type and multi-fields (their own copy_to is not followed),
 * unmapped targets are introduced by the dynamic rules of their parent
 * object, an object target is an error.
 */
static tv_status copy_to(dctx *c, const mnode *src, const tv_json *v) {
    if (v->type == TV_JSON_NULL) return TROVE_OK;
    for (uint32_t i = 0; i < src->copy_to->len; i++) {
        const tv_json *t = &src->copy_to->v.items[i];
        const tv_field *f = tv_mapping_field_or_alias(c->m, t->v.s, t->len);
        if (f && f->alias_target) {
            tv_error_set(c->err, TROVE_EMAPPER, "failed to parse");
            tv_error_cause(c->err, TROVE_EARG, "Cannot copy to a field alias [%.*s].", (int)t->len, t->v.s);
            return c->st = TROVE_EMAPPER;
        }
        if (f && f->type == TV_FT_OBJECT)
            return c->st = tv_error_set(c->err, TROVE_EMAPPER,
                                        "Cannot copy to field [%.*s] since it is mapped as an "
                                        "object",
                                        (int)t->len, t->v.s);
        if (f) {
            if (index_value(c, f, v)) return c->st;
            continue;
        }
        /* unmapped: parent path and leaf name */
        size_t pl = t->len;
        while (pl && t->v.s[pl - 1] != '.') pl--;
        const char *name = t->v.s + pl;
        size_t nlen = t->len - pl;
        if (pl) pl--; /* drop the dot */
        if (nlen == 0) continue;
        tv_dynamic dyn = tv_mapping_dynamic_of(c->m, t->v.s, pl);
        if (dyn == TV_DYNAMIC_STRICT) return strict_error(c, dyn, name, nlen, t->v.s, pl);
        if (dyn == TV_DYNAMIC_FALSE) continue;
        const char *fmt_unused;
        if (!dynamic_type(c, v, &fmt_unused)) continue;
        unode *pu = update_for_path(c, t->v.s, pl);
        if (!pu) return oom(c);
        if (dynamic_field(c, pu, name, nlen, v, t->v.s, pl, dyn)) return c->st;
    }
    return TROVE_OK;
}

static tv_status walk_object(dctx *c, const tv_json *obj, const mnode *node, unode *unew,
                             const char *path, size_t plen, tv_dynamic dyn) {
    for (uint32_t i = 0; i < obj->len; i++) {
        const tv_json_member *mem = &obj->v.members[i];
        if (walk_member(c, mem->key, mem->key_len, &mem->val, node, unew, path, plen, dyn))
            return c->st;
    }
    return TROVE_OK;
}

/* Drops entries for already mapped objects that received no new field
 * (left behind when a field was skipped, e.g. beyond the fields limit).
 * Returns true when u itself carries nothing new. */
static bool prune_update(unode *u) {
    unode **pp = &u->first;
    while (*pp) {
        if (prune_update(*pp)) *pp = (*pp)->next;
        else pp = &(*pp)->next;
    }
    return u->existing && !u->first;
}

/* Builds the update JSON: {"properties": {...}} (objects nest). */
static tv_json *update_json(dctx *c, const unode *u) {
    size_t n = 0;
    for (const unode *k = u->first; k; k = k->next) n++;
    tv_json *props = tv_arena_calloc(c->a, 1, sizeof *props);
    if (!props) return NULL;
    props->type = TV_JSON_OBJECT;
    props->len = (uint32_t)n;
    props->v.members = n ? tv_arena_calloc(c->a, n, sizeof(tv_json_member)) : NULL;
    if (n && !props->v.members) return NULL;
    size_t i = 0;
    for (const unode *k = u->first; k; k = k->next, i++) {
        tv_json_member *mem = &props->v.members[i];
        mem->key = k->name;
        mem->key_len = (uint32_t)k->name_len;
        if (k->tmpl) {
            /* the template's mapping, with the default type when it names
             * none, and the properties found below an object */
            const tv_json *t = k->tmpl;
            bool has_type = tv_json_get(t, "type") != NULL;
            tv_json_member *tm = tv_arena_calloc(c->a, t->len + 3, sizeof(tv_json_member));
            if (!tm) return NULL;
            uint32_t nt = 0;
            if (!has_type) {
                tm[nt].key = "type";
                tm[nt].key_len = 4;
                tm[nt].val = (tv_json){.type = TV_JSON_STRING, .len = (uint32_t)strlen(k->type), .v.s = k->type};
                nt++;
            }
            for (uint32_t j = 0; j < t->len; j++) tm[nt++] = t->v.members[j];
            if (k->format) {
                tm[nt].key = "format";
                tm[nt].key_len = 6;
                tm[nt].val = (tv_json){.type = TV_JSON_STRING, .len = (uint32_t)strlen(k->format),
                                       .v.s = k->format};
                nt++;
            }
            if (k->first) {
                tv_json *sub = update_json(c, k);
                if (!sub) return NULL;
                tm[nt].key = "properties";
                tm[nt].key_len = 10;
                tm[nt].val = sub->v.members[0].val;
                nt++;
            }
            mem->val = (tv_json){.type = TV_JSON_OBJECT, .len = nt, .v.members = tm};
            continue;
        }
        tv_json_member *fm = tv_arena_calloc(c->a, 3, sizeof(tv_json_member));
        if (!fm) return NULL;
        uint32_t nf = 0;
        if (strcmp(k->type, "object") == 0) {
            if (k->first) {
                tv_json *sub = update_json(c, k);
                if (!sub) return NULL;
                fm[nf].key = "properties";
                fm[nf].key_len = 10;
                fm[nf].val = sub->v.members[0].val; /* sub is {"properties":{...}} */
                nf++;
            } else {
                fm[nf].key = "type";
                fm[nf].key_len = 4;
                fm[nf].val = (tv_json){.type = TV_JSON_STRING, .len = 6, .v.s = "object"};
                nf++;
            }
        } else {
            fm[nf].key = "type";
            fm[nf].key_len = 4;
            fm[nf].val = (tv_json){.type = TV_JSON_STRING, .len = (uint32_t)strlen(k->type), .v.s = k->type};
            nf++;
            if (k->format) {
                fm[nf].key = "format";
                fm[nf].key_len = 6;
                fm[nf].val = (tv_json){.type = TV_JSON_STRING, .len = (uint32_t)strlen(k->format),
                                       .v.s = k->format};
                nf++;
            }
            if (strcmp(k->type, "text") == 0) {
                /* "fields":{"keyword":{"type":"keyword","ignore_above":256}} */
                tv_json_member *kw = tv_arena_calloc(c->a, 2, sizeof(tv_json_member));
                tv_json_member *fl = tv_arena_calloc(c->a, 1, sizeof(tv_json_member));
                if (!kw || !fl) return NULL;
                kw[0].key = "type";
                kw[0].key_len = 4;
                kw[0].val = (tv_json){.type = TV_JSON_STRING, .len = 7, .v.s = "keyword"};
                kw[1].key = "ignore_above";
                kw[1].key_len = 12;
                kw[1].val = (tv_json){.type = TV_JSON_INT, .v.i = 256};
                fl[0].key = "keyword";
                fl[0].key_len = 7;
                fl[0].val = (tv_json){.type = TV_JSON_OBJECT, .len = 2, .v.members = kw};
                fm[nf].key = "fields";
                fm[nf].key_len = 6;
                fm[nf].val = (tv_json){.type = TV_JSON_OBJECT, .len = 1, .v.members = fl};
                nf++;
            }
        }
        mem->val = (tv_json){.type = TV_JSON_OBJECT, .len = nf, .v.members = fm};
    }
    tv_json *root = tv_arena_calloc(c->a, 1, sizeof *root);
    tv_json_member *rm = tv_arena_calloc(c->a, 1, sizeof *rm);
    if (!root || !rm) return NULL;
    rm->key = "properties";
    rm->key_len = 10;
    rm->val = *props;
    root->type = TV_JSON_OBJECT;
    root->len = 1;
    root->v.members = rm;
    return root;
}

/* ------------------------------------------------------------- _source */

/* The strings of a mapping's _source includes or excludes (a JSON array)
 * as an arena array; false out of memory. */
static bool pattern_list(tv_arena *a, const tv_json *pats, const char ***out, size_t *n) {
    *out = NULL;
    *n = pats ? pats->len : 0;
    if (!*n) return true;
    const char **l = tv_arena_alloc(a, *n * sizeof *l);
    if (!l) return false;
    for (size_t i = 0; i < *n; i++) l[i] = pats->v.items[i].v.s;
    *out = l;
    return true;
}

/* ------------------------------------------------------------- entry */

static int cmp_acc(const void *a, const void *b) {
    const acc *x = *(acc *const *)a, *y = *(acc *const *)b;
    return x->f->id < y->f->id ? -1 : x->f->id > y->f->id;
}

static int cmp_u32(const void *a, const void *b) {
    const tv_token *x = a, *y = b;
    int cmp = tv_memcmp2(x->term, x->term_len, y->term, y->term_len);
    return cmp;
}

/* Character.isWhitespace for the bytes XContentFactory skips. */
static bool is_java_space(unsigned char c) {
    return c == ' ' || (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x1f);
}

/* The token Jackson returns for what follows a root value (it reads only
 * as far as it must), or NULL when Jackson itself would fail there. */
static const char *trailing_token(const char *p, size_t n) {
    if (!n) return NULL;
    switch (p[0]) {
    case '{': return "START_OBJECT";
    case '[': return "START_ARRAY";
    case '"': return "VALUE_STRING";
    case 't': return n >= 4 && memcmp(p, "true", 4) == 0 ? "VALUE_BOOLEAN" : NULL;
    case 'f': return n >= 5 && memcmp(p, "false", 5) == 0 ? "VALUE_BOOLEAN" : NULL;
    case 'n': return n >= 4 && memcmp(p, "null", 4) == 0 ? "VALUE_NULL" : NULL;
    default: return (p[0] >= '0' && p[0] <= '9') || p[0] == '-' ? "VALUE_NUMBER" : NULL;
    }
}

void tv_doc_opts_from_settings(const tv_settings *s, tv_doc_opts *opts) {
    opts->total_fields_limit = tv_settings_int(s, "index.mapping.total_fields.limit", 1000);
    opts->unmap_fields_beyond_limit =
        tv_settings_bool(s, "index.mapping.total_fields.unmap_fields_beyond_limit", false);
    opts->nested_objects_limit = tv_settings_int(s, "index.mapping.nested_objects.limit", 10000);
    opts->derived_source = tv_settings_bool(s, "index.derived_source.enabled", false);
}

tv_status tv_doc_parse(const tv_mapping *m, const char *id, size_t id_len, const char *source,
                       size_t source_len, tv_arena *arena, tv_parsed_doc *out,
                       tv_json **dynamic_update, tv_error *err) {
    return tv_doc_parse_ex(m, NULL, id, id_len, source, source_len, arena, out, dynamic_update,
                           err);
}

/* The accumulators of c->used (the current doc's) as tv_doc_fields,
 * sorted by field id, into out->fields (arena). */
static tv_status build_fields(dctx *c, tv_parsed_doc *out) {
    tv_arena *arena = c->a;
    tv_status st = TROVE_OK;
    /* fields, sorted by id */
    size_t n = 0;
    for (size_t i = 0; i < c->used->len; i++) n += c->used->items[i]->any;
    tv_doc_field *fields = n ? tv_arena_calloc(arena, n, sizeof *fields) : NULL;
    if (n && !fields) {
        st = oom(c);
        return st;
    }
    if (c->used->len > 1) qsort(c->used->items, c->used->len, sizeof(acc *), cmp_acc);
    size_t k = 0;
    for (size_t i = 0; i < c->used->len; i++) {
        acc *x = c->used->items[i];
        if (!x->any) continue;
        tv_doc_field *df = &fields[k++];
        const tv_field *f = x->f;
        df->field = f->id;
        df->type = f->type;
        df->index_options = f->index_options;
        df->dv_kind = f->dv_kind;
        df->norms = f->norms;
        if (x->toks.len) {
            tv_token *t = (void *)tv_arena_memdup(arena, x->toks.items, x->toks.len * sizeof(tv_token));
            if (!t) {
                st = oom(c);
                return st;
            }
            df->tokens = t;
            df->ntokens = (uint32_t)x->toks.len;
        }
        df->field_length = x->length;
        if (f->type == TV_FT_TEXT && f->index_options == TV_IO_DOCS && df->ntokens) {
            /* Lucene counts unique terms for norms when only docs are indexed */
            tv_token *sorted = (void *)tv_arena_memdup(arena, df->tokens, df->ntokens * sizeof(tv_token));
            if (!sorted) {
                st = oom(c);
                return st;
            }
            qsort(sorted, df->ntokens, sizeof(tv_token), cmp_u32);
            uint32_t uniq = 1;
            for (uint32_t j = 1; j < df->ntokens; j++)
                uniq += cmp_u32(&sorted[j - 1], &sorted[j]) != 0;
            df->field_length = uniq;
        }
        if (x->nums.len && (f->doc_values || f->index)) {
            int64_t *nums = (void *)tv_arena_memdup(arena, x->nums.items, x->nums.len * sizeof(int64_t));
            if (!nums) {
                st = oom(c);
                return st;
            }
            df->nums = nums;
            df->nnums = (uint32_t)x->nums.len;
        }
        if (x->keys.len) {
            const char **keys = (void *)tv_arena_memdup(arena, x->keys.items, x->keys.len * sizeof(char *));
            uint32_t *lens = (void *)tv_arena_memdup(arena, x->key_lens.items, x->keys.len * sizeof(uint32_t));
            if (!keys || !lens) {
                st = oom(c);
                return st;
            }
            df->keys = keys;
            df->key_lens = lens;
            df->nkeys = (uint32_t)x->keys.len;
        }
    }
    out->fields = fields;
    out->nfields = (uint32_t)k;
    return TROVE_OK;
}

/* Walks a nested object once more into the accumulators of an enclosing
 * doc (include_in_parent / include_in_root: DocumentParser.nested copies
 * its fields there). */
static tv_status rewalk(dctx *c, const tv_json *obj, const mnode *k, tv_dynamic dyn, acc **accs, accvec *used) {
    acc **cur_accs = c->accs;
    accvec *cur_used = c->used;
    c->accs = accs;
    c->used = used;
    c->flatten++;
    tv_status st = walk_object(c, obj, k, NULL, k->f.path, k->f.path_len, dyn);
    c->flatten--;
    c->accs = cur_accs;
    c->used = cur_used;
    return st;
}

/*
 * A nested object becomes a doc of its own (DocumentParser.nestedContext):
 * its fields go to fresh accumulators, the nested objects inside it are
 * made first (so the block is in post-order), then it is appended to
 * c->kids. include_in_parent / include_in_root walk it once more into the
 * enclosing doc's or the root's accumulators (a nested object below goes
 * along when it is included itself).
 */
static tv_status walk_nested(dctx *c, const tv_json *obj, const mnode *k, tv_dynamic dyn) {
    if (++c->nested_count > c->nested_limit) {
        tv_error_set(c->err, TROVE_EMAPPER, "failed to parse");
        tv_error_cause(c->err, TROVE_EARG,
                       "The number of nested documents has exceeded the allowed limit of [%lld]. This limit "
                       "can be set by changing the [index.mapping.nested_objects.limit] index level setting.",
                       (long long)c->nested_limit);
        return c->st = TROVE_EMAPPER;
    }
    acc **saved_accs = c->accs;
    accvec mine = {0}, *saved_used = c->used;
    c->accs = tv_arena_calloc(c->a, c->nf ? c->nf : 1, sizeof(acc *));
    c->used = &mine;
    tv_status st = c->accs ? TROVE_OK : oom(c);
    if (!st) st = walk_object(c, obj, k, NULL, k->f.path, k->f.path_len, dyn);
    tv_parsed_doc kid = {.nest = k->f.id + 1};
    if (!st && !c->update) {
        st = build_fields(c, &kid);
        if (!st && tv_vec_push(&c->kids, kid)) st = oom(c);
    }
    for (size_t i = 0; i < mine.len; i++) acc_free(mine.items[i]);
    tv_vec_fini(&mine);
    c->accs = saved_accs;
    c->used = saved_used;
    if (st) return c->st = st;
    /* include_in_root with the root as parent is include_in_parent (once) */
    bool to_parent = k->f.include_in_parent || (k->f.include_in_root && !k->f.nested_scope);
    if (to_parent && (st = rewalk(c, obj, k, dyn, c->accs, c->used))) return st;
    if (k->f.include_in_root && k->f.nested_scope && (st = rewalk(c, obj, k, dyn, c->root_accs, c->root_used)))
        return st;
    return TROVE_OK;
}

/* ------------------------------------------------------- derived source */

/*
 * index.derived_source.enabled: the _source stored is the one OpenSearch
 * rebuilds from doc values and stored fields (DerivedFieldGenerator), made
 * once at write time from what the fields indexed, so every reader (get,
 * search, update, reindex) sees it. The mapping was checked derivable
 * (tv_mapping_check_derivable). Per field, in mapping order: doc values
 * when the field has them (numbers, dates, booleans and geo points sorted
 * with duplicates kept, as SortedNumericDocValues; keywords and ips sorted
 * and unique, as SortedSetDocValues), else the stored values as given
 * (text is always stored); one value prints as a scalar, several as an
 * array; a field without values, or an object without any, is left out.
 * Dates print in the field's first format, floats at their precision.
 */
static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

typedef struct dkey {
    const char *s;
    uint32_t n;
} dkey;

static int cmp_dkey(const void *a, const void *b) {
    const dkey *x = a, *y = b;
    int c = memcmp(x->s, y->s, TV_MIN(x->n, y->n));
    return c ? c : (x->n > y->n) - (x->n < y->n);
}

static const acc *derived_acc(const dctx *c, const tv_field *f) {
    const acc *x = f->id < c->nf ? c->root_accs[f->id] : NULL;
    return x && x->any && (x->nums.len || x->keys.len || x->raw.len) ? x : NULL;
}

static bool derived_any(const dctx *c, const mnode *k) {
    if (k->is_alias || k->is_multi) return false;
    if (k->f.type != TV_FT_OBJECT) return derived_acc(c, &k->f) != NULL;
    for (uint32_t i = 0; i < k->nkids; i++)
        if (derived_any(c, k->kids[i])) return true;
    return false;
}

static void derived_num(tv_jw *w, const tv_field *f, int64_t x) {
    char buf[96];
    switch (f->type) {
    case TV_FT_FLOAT: case TV_FT_HALF_FLOAT: tv_jw_float(w, (float)tv_sortable_to_double(x)); break;
    case TV_FT_DOUBLE: tv_jw_double(w, tv_sortable_to_double(x)); break;
    case TV_FT_SCALED_FLOAT: tv_jw_double(w, (double)x / f->scaling_factor); break;
    case TV_FT_UNSIGNED_LONG: tv_jw_uint(w, tv_sortable_to_unsigned(x)); break;
    case TV_FT_BOOLEAN: tv_jw_bool(w, x != 0); break;
    case TV_FT_DATE:
        tv_date_format(x, f->format, buf, sizeof buf);
        tv_jw_strz(w, buf);
        break;
    case TV_FT_DATE_NANOS:
        tv_date_format_nanos(x, f->format ? f->format : TV_DATE_NANOS_DEFAULT_FORMAT, buf, sizeof buf);
        tv_jw_strz(w, buf);
        break;
    case TV_FT_GEO_POINT: {
        double lat, lon;
        tv_geo_decode(x, &lat, &lon);
        tv_jw_obj_begin(w);
        tv_jw_keyz(w, "lat");
        tv_jw_double(w, lat);
        tv_jw_keyz(w, "lon");
        tv_jw_double(w, lon);
        tv_jw_obj_end(w);
        break;
    }
    default: tv_jw_int(w, x); break;
    }
}

static void derived_key(tv_jw *w, const tv_field *f, const char *s, uint32_t n) {
    if (f->type == TV_FT_IP && n == 16) {
        char buf[64];
        tv_ip_format((const uint8_t *)s, buf);
        tv_jw_strz(w, buf);
    } else {
        tv_jw_str(w, s, n);
    }
}

/* A stored value as given: the string the field stored (numbers and
 * booleans of a text field as their text). */
static void derived_raw(tv_jw *w, const tv_json *v) {
    if (v->type == TV_JSON_STRING) tv_jw_str(w, v->v.s, v->len);
    else if (v->raw) tv_jw_str(w, v->raw, v->raw_len);
    else if (v->type == TV_JSON_TRUE || v->type == TV_JSON_FALSE) tv_jw_strz(w, v->type == TV_JSON_TRUE ? "true" : "false");
    else tv_jw_value(w, v);
}

static tv_status derived_leaf(dctx *c, tv_jw *w, const mnode *k, const acc *x) {
    const tv_field *f = &k->f;
    bool text = tv_field_type_is_text(f->type) || f->type == TV_FT_BINARY;
    bool dv = !text && f->doc_values;
    size_t n;
    if (dv && x->keys.len) { /* sorted set: sorted, unique */
        dkey *ks = tv_arena_alloc(c->a, x->keys.len * sizeof *ks);
        if (!ks) return oom(c);
        for (size_t i = 0; i < x->keys.len; i++) ks[i] = (dkey){x->keys.items[i], x->key_lens.items[i]};
        qsort(ks, x->keys.len, sizeof *ks, cmp_dkey);
        n = 0;
        for (size_t i = 0; i < x->keys.len; i++)
            if (n == 0 || cmp_dkey(&ks[n - 1], &ks[i]) != 0) ks[n++] = ks[i];
        if (n > 1) tv_jw_arr_begin(w);
        for (size_t i = 0; i < n; i++) derived_key(w, f, ks[i].s, ks[i].n);
        if (n > 1) tv_jw_arr_end(w);
    } else if (!text && x->nums.len) { /* sorted numeric: sorted, duplicates kept */
        int64_t *v = (int64_t *)tv_arena_memdup(c->a, x->nums.items, x->nums.len * sizeof *v);
        if (!v) return oom(c);
        n = x->nums.len;
        if (dv) qsort(v, n, sizeof *v, cmp_i64);
        if (n > 1) tv_jw_arr_begin(w);
        for (size_t i = 0; i < n; i++) derived_num(w, f, v[i]);
        if (n > 1) tv_jw_arr_end(w);
    } else { /* stored: the values as given */
        n = x->raw.len;
        if (n > 1) tv_jw_arr_begin(w);
        for (size_t i = 0; i < n; i++) derived_raw(w, x->raw.items[i]);
        if (n > 1) tv_jw_arr_end(w);
    }
    return TROVE_OK;
}

static tv_status derived_node(dctx *c, tv_jw *w, const mnode *k) {
    for (uint32_t i = 0; i < k->nkids; i++) {
        const mnode *kid = k->kids[i];
        if (!derived_any(c, kid)) continue;
        tv_jw_key(w, kid->name, kid->name_len);
        tv_status st;
        if (kid->f.type == TV_FT_OBJECT) {
            tv_jw_obj_begin(w);
            st = derived_node(c, w, kid);
            tv_jw_obj_end(w);
        } else {
            st = derived_leaf(c, w, kid, derived_acc(c, &kid->f));
        }
        if (st) return st;
    }
    return TROVE_OK;
}

static tv_status derive_source(dctx *c, const tv_mapping *m, tv_parsed_doc *out) {
    tv_buf b;
    tv_buf_init(&b);
    tv_jw w;
    tv_jw_init(&w, &b, false);
    tv_jw_obj_begin(&w);
    tv_status st = derived_node(c, &w, tv_mapping_root(m));
    tv_jw_obj_end(&w);
    if (!st && !b.oom) {
        out->source = tv_arena_memdup(c->a, b.data, b.len);
        out->source_len = b.len;
    }
    tv_buf_fini(&b);
    if (st) return st;
    return out->source ? TROVE_OK : oom(c);
}

tv_status tv_doc_parse_ex(const tv_mapping *m, const tv_doc_opts *opts, const char *id,
                          size_t id_len, const char *source, size_t source_len, tv_arena *arena,
                          tv_parsed_doc *out, tv_json **dynamic_update, tv_error *err) {
    tv_error_clear(err);
    memset(out, 0, sizeof *out);
    if (dynamic_update) *dynamic_update = NULL;
    if (!id) id = "", id_len = 0;
    /* OpenSearch detects the content type before parsing: a source whose
     * first non-blank byte is not '{' is not x-content at all */
    size_t lead = 0;
    while (lead < source_len && is_java_space((unsigned char)source[lead])) lead++;
    if (lead == source_len || source[lead] != '{') {
        tv_error_set(err, TROVE_EMAPPER, "failed to parse");
        tv_error_cause(err, TROVE_ENOTXCONTENT, "%s", trove_status_message(TROVE_ENOTXCONTENT));
        return TROVE_EMAPPER;
    }
    tv_json *doc;
    tv_json_error je;
    tv_status st = tv_json_parse(arena, source, source_len, &doc, &je);
    const char *extra = NULL; /* the token found after the root object */
    if (st == TROVE_EJSON && strstr(je.msg, "expected end-of-input after the root value") &&
        (extra = trailing_token(source + je.pos, source_len - je.pos)) != NULL) {
        /* Jackson reads several root values; DocumentParser parses the
         * first and only then complains about what follows */
        st = tv_json_parse(arena, source, je.pos, &doc, &je);
    }
    if (st) {
        if (st == TROVE_ENOMEM) return tv_error_set(err, st, "out of memory");
        tv_error_set(err, TROVE_EMAPPER, "failed to parse");
        if (st == TROVE_ELIMIT)
            tv_error_cause(err, TROVE_ELIMIT, "%s", je.msg);
        else
            tv_error_cause(err, TROVE_EJSON,
                           "%s\n at [Source: REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` "
                           "disabled); line: %u, column: %u]",
                           je.msg, je.line, je.col);
        return TROVE_EMAPPER;
    }
    accvec root_used = {0};
    dctx c = {.m = m, .a = arena, .err = err, .id = id, .id_len = id_len, .field_budget = -1,
              .used = &root_used, .root_used = &root_used,
              .nested_limit = opts && opts->nested_objects_limit > 0 ? opts->nested_objects_limit : 10000,
              .derived = opts && opts->derived_source};
    if (opts && opts->unmap_fields_beyond_limit && opts->total_fields_limit >= 0) {
        c.field_budget = opts->total_fields_limit;
        c.fields_used = tv_mapping_total_fields(m);
    }
    uint32_t nf = tv_mapping_field_count(m);
    c.nf = nf;
    c.accs = tv_arena_calloc(arena, nf ? nf : 1, sizeof(acc *));
    if (!c.accs) return tv_error_oom(err);
    c.root_accs = c.accs;
    st = walk_object(&c, doc, tv_mapping_root(m), NULL, "", 0, m->dynamic);
    if (st) goto done;
    if (c.update) {
        c.update->existing = true; /* the root */
        if (prune_update(c.update)) c.update = NULL;
    }
    /* constant_keyword: every document holds the constant */
    for (uint32_t i = 0; i < nf && !c.update; i++) {
        const tv_field *f = tv_mapping_field_by_id(m, i);
        if (!f || f->type != TV_FT_KEYWORD || !is_decl(f, "constant_keyword")) continue;
        if (c.accs[i] && c.accs[i]->any) continue;
        const tv_json *val = node_param(f, P_VALUE);
        if (!val) continue;
        acc *x = acc_of(&c, f);
        if (!x) {
            st = oom(&c);
            goto done;
        }
        if ((st = keyword_value(&c, f, val, x))) goto done;
    }
    if (extra) {
        tv_error_set(err, TROVE_EMAPPER, "failed to parse");
        tv_error_cause(err, TROVE_EARG, "Malformed content, found extra data after parsing: %s", extra);
        st = TROVE_EMAPPER;
        goto done;
    }
    if (c.update) {
        if (dynamic_update) {
            *dynamic_update = update_json(&c, c.update);
            if (!*dynamic_update) {
                st = oom(&c);
                goto done;
            }
        }
        /* out is incomplete: the caller merges and parses again */
        goto done;
    }
    out->id = tv_arena_memdup(arena, id, id_len);
    out->id_len = (uint32_t)id_len;
    if (!out->id) {
        st = oom(&c);
        goto done;
    }
    if (c.derived && tv_mapping_source_enabled(m)) {
        if ((st = derive_source(&c, m, out))) goto done;
    } else if (tv_mapping_source_enabled(m)) {
        const tv_json *inc = m->source_includes, *exc = m->source_excludes;
        if ((inc && inc->len) || (exc && exc->len)) {
            const char **il, **el;
            size_t ni, ne;
            const tv_json *f = NULL;
            if (pattern_list(arena, inc, &il, &ni) && pattern_list(arena, exc, &el, &ne))
                f = tv_json_filter(arena, doc, il, ni, el, ne, false);
            tv_buf b;
            tv_buf_init(&b);
            tv_jw w;
            tv_jw_init(&w, &b, false);
            if (f) tv_jw_value(&w, f);
            if (!f || b.oom) {
                tv_buf_fini(&b);
                st = oom(&c);
                goto done;
            }
            out->source = tv_arena_memdup(arena, b.data ? b.data : "{}", b.len ? b.len : 2);
            out->source_len = b.len ? b.len : 2;
            tv_buf_fini(&b);
        } else {
            out->source = tv_arena_memdup(arena, source, source_len);
            out->source_len = source_len;
        }
        if (!out->source) {
            st = oom(&c);
            goto done;
        }
    }
    if ((st = build_fields(&c, out))) goto done;
    out->nest = 0;
    out->nested = c.kids.len ? (const void *)tv_arena_memdup(arena, c.kids.items, c.kids.len * sizeof(tv_parsed_doc)) : NULL;
    out->nnested = (uint32_t)c.kids.len;
    if (c.kids.len && !out->nested) st = oom(&c);
done:
    for (size_t i = 0; i < root_used.len; i++) acc_free(root_used.items[i]);
    tv_vec_fini(&root_used);
    tv_vec_fini(&c.kids);
    if (st) memset(out, 0, sizeof *out);
    return st;
}
