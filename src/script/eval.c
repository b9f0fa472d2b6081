/*
 * eval.c — the interpreter: a script's tree evaluated over tv_sv values.
 *
 * Expressions evaluate into a tv_sv; statements return a completion
 * (normal, break, continue, return, error). Locals live in a frame of
 * slots the parser numbered; a typed local converts what is stored into
 * it as Painless's implicit casts do (int takes int and char, long takes
 * int, ...; def takes anything) and refuses the rest with Painless's
 * ClassCastException text. Every operator follows Java's binary numeric
 * promotion on the runtime types (Painless's def operators): wrapping
 * int/long arithmetic, truncating division, "/ by zero", shifts masked,
 * + concatenating when either side is a String. == is Painless's def
 * equality (numbers by value, else equals), === identity.
 *
 * Methods are dispatched by the receiver's runtime type and the method's
 * name and arity (Painless's def call sites): the List, Map, Map.Entry,
 * String, boxed number, doc-values (GeoPoints' distances too), date
 * (JodaCompatibleZonedDateTime's getters, toInstant; the ZonedDateTime
 * arithmetic it lacks is a 400 naming it), GeoPoint and DayOfWeek methods
 * listed in the functions below, and static Math, Integer, Long, Double, Float, Boolean, String,
 * Collections and Objects methods. Anything else is Painless's
 * "dynamic method [class, name/arity] not found".
 *
 * A context's imported functions (N_HCALL) convert their arguments to the
 * parameter types as Painless casts a def, compute what is pure
 * arithmetic here (saturation, sigmoid, the numeric decays) and ask the
 * host (tv_script_env.host) for the rest; a class binding's constructor
 * arguments come from its first call when the caller keeps binds.
 *
 * Runtime errors are ScriptException "runtime error" with the statement
 * being run as the excerpt (from its start to the next statement's, as
 * PainlessScriptEngine cuts it) and the failing node as the position;
 * Painless's Java frames are not reproduced in script_stack.
 * The sandbox: one counter of loop iterations per run (PainlessError at
 * 1,000,000), a memory cap on the run's arena, evaluation depth bounded
 * by the parser's nesting limit.
 * Alternatives rejected: compiling to bytecode (a tree walk is fast enough
 * for update scripts and keeps errors pointing at source offsets).
 */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

#include "script_int.h"

enum { C_NORMAL, C_BREAK, C_CONTINUE, C_RETURN, C_ERROR };

typedef struct R {
    const tv_script *s;
    tv_script_env *env;
    tv_arena *a;
    tv_script_error *err;
    tv_sv *slots;
    tv_sv params;
    tv_sv ret;
    uint64_t loops;
    uint32_t stmt; /* offset of the statement being run */
    int depth;     /* of expression evaluation */
    size_t base, max;
    bool oom;
} R;

/* ------------------------------------------------------------- errors */

static bool rt_fail(R *r, uint32_t off, tv_status cause, const char *fmt, ...) TV_PRINTF(4, 5);
static bool rt_fail(R *r, uint32_t off, tv_status cause, const char *fmt, ...) {
    tv_script_error *e = r->err;
    if (e->code) return false;
    memset(e, 0, sizeof *e);
    e->code = TROVE_ESCRIPT;
    e->cause = cause;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->cause_reason, sizeof e->cause_reason, fmt, ap);
    va_end(ap);
    const char *src = r->s->src;
    uint32_t len = (uint32_t)r->s->len;
    /* the statement holding off: the last start <= off */
    uint32_t start = 0, end = len;
    for (uint32_t i = 0; i < r->s->nstmt; i++) {
        if (r->s->stmt[i] <= off) start = r->s->stmt[i];
    }
    for (uint32_t i = 0; i < r->s->nstmt; i++)
        if (r->s->stmt[i] > start) {
            end = r->s->stmt[i];
            break;
        }
    if (off > len) off = len;
    snprintf(e->stack[0], sizeof e->stack[0], "%.*s", (int)(end - start), src + start);
    size_t k = 0;
    for (uint32_t i = start; i < off && k + 12 < sizeof e->stack[1]; i++) e->stack[1][k++] = ' ';
    snprintf(e->stack[1] + k, sizeof e->stack[1] - k, "^---- HERE");
    e->has_pos = true;
    e->offset = off;
    e->start = start;
    e->end = end;
    return false;
}

static bool rt_oom(R *r) {
    r->oom = true;
    if (!r->err->code) {
        memset(r->err, 0, sizeof *r->err);
        r->err->code = TROVE_ENOMEM;
    }
    return false;
}

static bool npe(R *r, uint32_t off) {
    return rt_fail(r, off, TROVE_ENULLPOINTER, "Cannot invoke \"Object.getClass()\" because \"callArgs[0]\" is null");
}

/* Painless's canonical name of a value's unboxed type */
static const char *unboxed(const tv_sv *v) {
    switch (v->type) {
    case TV_SV_BOOL: return "boolean";
    case TV_SV_CHAR: return "char";
    case TV_SV_INT: return "int";
    case TV_SV_LONG: return "long";
    case TV_SV_FLOAT: return "float";
    case TV_SV_DOUBLE: return "double";
    default: return tv_sv_class(v);
    }
}

static bool is_num(const tv_sv *v) {
    return v->type == TV_SV_INT || v->type == TV_SV_LONG || v->type == TV_SV_FLOAT || v->type == TV_SV_DOUBLE ||
           v->type == TV_SV_CHAR;
}


static int64_t as_long(const tv_sv *v) {
    switch (v->type) {
    case TV_SV_CHAR: return v->v.c;
    case TV_SV_INT: return v->v.i;
    case TV_SV_LONG: return v->v.l;
    case TV_SV_FLOAT: return tv_java_d2l(v->v.f);
    case TV_SV_DOUBLE: return tv_java_d2l(v->v.d);
    default: return 0;
    }
}

static double as_double(const tv_sv *v) {
    switch (v->type) {
    case TV_SV_CHAR: return v->v.c;
    case TV_SV_INT: return v->v.i;
    case TV_SV_LONG: return (double)v->v.l;
    case TV_SV_FLOAT: return v->v.f;
    case TV_SV_DOUBLE: return v->v.d;
    default: return 0;
    }
}

static int32_t d2i(double d) {
    if (d != d) return 0;
    if (d >= 2147483647.0) return INT32_MAX;
    if (d <= -2147483648.0) return INT32_MIN;
    return (int32_t)d;
}

/* ----------------------------------------------------------- conversions */

/* The JVM's ClassCastException text: java.* classes are java.base's,
 * OpenSearch's (org.opensearch.*) the application loader's. */
static const char *java_module(const char *cls) {
    return strncmp(cls, "java.", 5) == 0 ? "module java.base of loader 'bootstrap'" : "unnamed module of loader 'app'";
}

static bool java_cast_msg(R *r, uint32_t off, const tv_sv *v, const char *to) {
    const char *from = tv_sv_class(v);
    const char *mf = java_module(from), *mt = java_module(to);
    if (mf == mt)
        return rt_fail(r, off, TROVE_ECLASSCAST, "class %s cannot be cast to class %s (%s and %s are in %s)", from, to,
                       from, to, mf);
    return rt_fail(r, off, TROVE_ECLASSCAST, "class %s cannot be cast to class %s (%s is in %s; %s is in %s)", from,
                   to, from, mf, to, mt);
}

static const char *java_class_of(sty t) {
    switch (t) {
    case TY_STRING: return "java.lang.String";
    case TY_LIST: return "java.util.List";
    case TY_ARRAYLIST: return "java.util.ArrayList";
    case TY_MAP: return "java.util.Map";
    case TY_HASHMAP: return "java.util.HashMap";
    case TY_LINKEDHASHMAP: return "java.util.LinkedHashMap";
    case TY_COLLECTION: return "java.util.Collection";
    case TY_NUMBER: return "java.lang.Number";
    case TY_INT_B: return "java.lang.Integer";
    case TY_LONG_B: return "java.lang.Long";
    case TY_FLOAT_B: return "java.lang.Float";
    case TY_DOUBLE_B: return "java.lang.Double";
    case TY_BOOLEAN_B: return "java.lang.Boolean";
    case TY_CHAR_B: return "java.lang.Character";
    case TY_ENTRY: return "java.util.Map$Entry";
    default: return "java.lang.Object";
    }
}

static sty unbox_ty(sty t) {
    switch (t) {
    case TY_INT_B: return TY_INT;
    case TY_LONG_B: return TY_LONG;
    case TY_FLOAT_B: return TY_FLOAT;
    case TY_DOUBLE_B: return TY_DOUBLE;
    case TY_BOOLEAN_B: return TY_BOOLEAN;
    case TY_CHAR_B: return TY_CHAR;
    default: return t;
    }
}

/* does a reference value fit type t (instanceof) */
static bool instance_of(const tv_sv *v, sty t) {
    switch (t) {
    case TY_DEF:
    case TY_OBJECT: return v->type != TV_SV_NULL;
    case TY_BOOLEAN:
    case TY_BOOLEAN_B: return v->type == TV_SV_BOOL;
    case TY_CHAR:
    case TY_CHAR_B: return v->type == TV_SV_CHAR;
    case TY_INT:
    case TY_INT_B: return v->type == TV_SV_INT;
    case TY_LONG:
    case TY_LONG_B: return v->type == TV_SV_LONG;
    case TY_FLOAT:
    case TY_FLOAT_B: return v->type == TV_SV_FLOAT;
    case TY_DOUBLE:
    case TY_DOUBLE_B: return v->type == TV_SV_DOUBLE;
    case TY_NUMBER: return v->type == TV_SV_INT || v->type == TV_SV_LONG || v->type == TV_SV_FLOAT || v->type == TV_SV_DOUBLE;
    case TY_STRING: return v->type == TV_SV_STRING;
    case TY_LIST:
    case TY_COLLECTION: return v->type == TV_SV_LIST && v->v.list->kind != TV_SV_ARRAY;
    case TY_ARRAYLIST: return v->type == TV_SV_LIST && v->v.list->kind == TV_SV_ARRAYLIST;
    case TY_MAP:
    case TY_HASHMAP: return v->type == TV_SV_MAP;
    case TY_LINKEDHASHMAP: return v->type == TV_SV_MAP && v->v.map->ordered;
    case TY_ENTRY: return v->type == TV_SV_ENTRY;
    default: return false;
    }
}

static bool is_prim(sty t) { return t >= TY_BOOLEAN && t <= TY_DOUBLE; }

/* Java's (int) of a number */
static int32_t narrow_i(const tv_sv *v) {
    switch (v->type) {
    case TV_SV_CHAR: return v->v.c;
    case TV_SV_INT: return v->v.i;
    case TV_SV_LONG: return (int32_t)(uint32_t)(uint64_t)v->v.l;
    case TV_SV_FLOAT: return d2i(v->v.f);
    case TV_SV_DOUBLE: return d2i(v->v.d);
    default: return 0;
    }
}

/* Java's cast of a number to a numeric primitive type */
static tv_sv num_cast(const tv_sv *v, sty t) {
    tv_sv o;
    switch (t) {
    case TY_BYTE: return tv_sv_int((int8_t)(uint8_t)(uint32_t)narrow_i(v));
    case TY_SHORT: return tv_sv_int((int16_t)(uint16_t)(uint32_t)narrow_i(v));
    case TY_CHAR:
        o.type = TV_SV_CHAR;
        o.v.c = (uint16_t)(uint32_t)narrow_i(v);
        return o;
    case TY_INT: return tv_sv_int(narrow_i(v));
    case TY_LONG: return tv_sv_long(as_long(v));
    case TY_FLOAT:
        o.type = TV_SV_FLOAT;
        o.v.f = v->type == TV_SV_DOUBLE ? (float)v->v.d
              : v->type == TV_SV_LONG   ? (float)v->v.l
              : v->type == TV_SV_FLOAT  ? v->v.f
                                        : (float)as_long(v);
        return o;
    default: return tv_sv_double(as_double(v));
    }
}

/* an assignment's conversion into a typed local (Painless's implicit casts) */
static bool implicit(R *r, uint32_t off, tv_sv *v, sty t) {
    if (t == TY_DEF || t == TY_OBJECT || t == TY_NONE) return true;
    sty u = unbox_ty(t);
    if (v->type == TV_SV_NULL) {
        if (is_prim(t)) return npe(r, off);
        return true;
    }
    switch (u) {
    case TY_BOOLEAN:
        if (v->type == TV_SV_BOOL) return true;
        break;
    case TY_BYTE:
    case TY_SHORT:
        if (v->type == TV_SV_INT) return *v = num_cast(v, u), true;
        break;
    case TY_CHAR:
        if (v->type == TV_SV_CHAR) return true;
        break;
    case TY_INT:
        if (v->type == TV_SV_INT || v->type == TV_SV_CHAR) return *v = num_cast(v, u), true;
        break;
    case TY_LONG:
        if (v->type == TV_SV_INT || v->type == TV_SV_CHAR || v->type == TV_SV_LONG) return *v = num_cast(v, u), true;
        break;
    case TY_FLOAT:
        if (is_num(v) && v->type != TV_SV_DOUBLE) return *v = num_cast(v, u), true;
        break;
    case TY_DOUBLE:
        if (is_num(v)) return *v = num_cast(v, u), true;
        break;
    default:
        if (instance_of(v, t)) return true;
        return java_cast_msg(r, off, v, java_class_of(t));
    }
    return rt_fail(r, off, TROVE_ECLASSCAST, "cannot implicitly cast def [%s] to %s", unboxed(v),
                   tv_script_type_name(u));
}

/* an explicit cast (type) v */
static bool explicit_cast(R *r, uint32_t off, tv_sv *v, sty t) {
    if (t == TY_DEF || t == TY_OBJECT) return true;
    sty u = unbox_ty(t);
    if (v->type == TV_SV_NULL) return is_prim(t) ? npe(r, off) : true;
    if (is_prim(t) && u != TY_BOOLEAN && is_num(v)) return *v = num_cast(v, u), true;
    if (u == TY_CHAR && v->type == TV_SV_STRING && tv_sv_str_u16len(v->v.s) == 1) {
        uint32_t cp;
        tv_utf8_decode((const uint8_t *)v->v.s->s, (const uint8_t *)v->v.s->s + v->v.s->len, &cp);
        v->type = TV_SV_CHAR;
        v->v.c = (uint16_t)cp;
        return true;
    }
    if (u == TY_BOOLEAN && v->type == TV_SV_BOOL) return true;
    if (t == TY_STRING && v->type == TV_SV_CHAR) {
        tv_buf b;
        tv_buf_init(&b);
        tv_sv_to_string(&b, v);
        bool ok = tv_sv_string_buf(r->a, &b, v);
        tv_buf_fini(&b);
        return ok ? true : rt_oom(r);
    }
    if (!is_prim(t) && instance_of(v, t)) return true;
    if (is_prim(t))
        return rt_fail(r, off, TROVE_ECLASSCAST, "Cannot cast from [%s] to [%s].", unboxed(v), tv_script_type_name(t));
    return java_cast_msg(r, off, v, java_class_of(t));
}

/* ------------------------------------------------------------ operators */

static const char *const opnames[] = {"", "+", "-", "*", "/", "%", "<<", ">>", ">>>", "&", "|", "^", "==", "!=",
                                      "===", "!==", "<", "<=", ">", ">=", "!", "~", "-", "+"};

static bool bad_op(R *r, uint32_t off, int op, const tv_sv *a, const tv_sv *b) {
    if (!b)
        return rt_fail(r, off, TROVE_ECLASSCAST, "Cannot apply [%s] operation to type [%s].", opnames[op],
                       tv_sv_class(a));
    return rt_fail(r, off, TROVE_ECLASSCAST, "Cannot apply [%s] operation to types [%s] and [%s].", opnames[op],
                   tv_sv_class(a), tv_sv_class(b));
}

static int rank(const tv_sv *v) {
    switch (v->type) {
    case TV_SV_CHAR:
    case TV_SV_INT: return 1;
    case TV_SV_LONG: return 2;
    case TV_SV_FLOAT: return 3;
    case TV_SV_DOUBLE: return 4;
    default: return 0;
    }
}

static bool mem_check(R *r, uint32_t off) {
    if (r->a->total - r->base > r->max)
        return rt_fail(r, off, TROVE_ELIMIT, "the script took more than [%zu] bytes of memory", r->max);
    return true;
}

static bool str_of(R *r, const tv_sv *v, tv_sv *out) {
    if (v->type == TV_SV_STRING) return *out = *v, true;
    tv_buf b;
    tv_buf_init(&b);
    tv_sv_to_string(&b, v);
    bool ok = tv_sv_string_buf(r->a, &b, out);
    tv_buf_fini(&b);
    return ok ? true : rt_oom(r);
}

static bool concat(R *r, uint32_t off, const tv_sv *a, const tv_sv *b, tv_sv *out) {
    tv_buf buf;
    tv_buf_init(&buf);
    tv_sv_to_string(&buf, a);
    tv_sv_to_string(&buf, b);
    bool ok = tv_sv_string_buf(r->a, &buf, out);
    tv_buf_fini(&buf);
    if (!ok) return rt_oom(r);
    return mem_check(r, off);
}

static bool identical(const tv_sv *a, const tv_sv *b) {
    if (a->type != b->type) return false;
    switch (a->type) {
    case TV_SV_STRING: return a->v.s == b->v.s || tv_sv_key_equals(a, b);
    case TV_SV_LIST: return a->v.list == b->v.list;
    case TV_SV_MAP: return a->v.map == b->v.map;
    case TV_SV_ENTRY: return a->v.entry == b->v.entry;
    default: return tv_sv_key_equals(a, b);
    }
}

static bool arith(R *r, uint32_t off, int op, const tv_sv *a, const tv_sv *b, tv_sv *out) {
    if (op == OP_EQ || op == OP_NE) {
        bool e = tv_sv_equals(a, b);
        *out = tv_sv_bool(op == OP_EQ ? e : !e);
        return true;
    }
    if (op == OP_EQR || op == OP_NER) {
        bool e = identical(a, b);
        *out = tv_sv_bool(op == OP_EQR ? e : !e);
        return true;
    }
    if (op == OP_ADD && (a->type == TV_SV_STRING || b->type == TV_SV_STRING)) return concat(r, off, a, b, out);
    if ((op == OP_BAND || op == OP_BOR || op == OP_BXOR) && a->type == TV_SV_BOOL && b->type == TV_SV_BOOL) {
        bool x = a->v.b, y = b->v.b;
        *out = tv_sv_bool(op == OP_BAND ? (x & y) : op == OP_BOR ? (x | y) : (x ^ y));
        return true;
    }
    int ra = rank(a), rb = rank(b);
    if (!ra || !rb) return bad_op(r, off, op, a, b);
    if (op == OP_SHL || op == OP_SHR || op == OP_USHR) {
        if (ra > 2 || rb > 2) return bad_op(r, off, op, a, b);
        int64_t d = as_long(b);
        if (ra == 1) {
            uint32_t x = (uint32_t)narrow_i(a);
            int s = (int)(d & 31);
            *out = tv_sv_int(op == OP_SHL ? (int32_t)(x << s) : op == OP_USHR ? (int32_t)(x >> s) : (int32_t)x >> s);
        } else {
            uint64_t x = (uint64_t)as_long(a);
            int s = (int)(d & 63);
            *out = tv_sv_long(op == OP_SHL ? (int64_t)(x << s) : op == OP_USHR ? (int64_t)(x >> s) : (int64_t)x >> s);
        }
        return true;
    }
    int k = ra > rb ? ra : rb;
    if ((op == OP_BAND || op == OP_BOR || op == OP_BXOR) && k > 2) return bad_op(r, off, op, a, b);
    if (op >= OP_LT && op <= OP_GE) {
        bool res;
        if (k <= 2) {
            int64_t x = as_long(a), y = as_long(b);
            res = op == OP_LT ? x < y : op == OP_LE ? x <= y : op == OP_GT ? x > y : x >= y;
        } else {
            double x = as_double(a), y = as_double(b);
            if (k == 3) {
                x = (float)x;
                y = (float)y;
            }
            res = op == OP_LT ? x < y : op == OP_LE ? x <= y : op == OP_GT ? x > y : x >= y;
        }
        *out = tv_sv_bool(res);
        return true;
    }
    if (k == 1) {
        uint32_t x = (uint32_t)narrow_i(a), y = (uint32_t)narrow_i(b);
        int32_t xs = (int32_t)x, ys = (int32_t)y;
        switch (op) {
        case OP_ADD: *out = tv_sv_int((int32_t)(x + y)); return true;
        case OP_SUB: *out = tv_sv_int((int32_t)(x - y)); return true;
        case OP_MUL: *out = tv_sv_int((int32_t)(x * y)); return true;
        case OP_DIV:
        case OP_REM:
            if (ys == 0) return rt_fail(r, off, TROVE_EARITHMETIC, "/ by zero");
            if (xs == INT32_MIN && ys == -1) *out = tv_sv_int(op == OP_DIV ? INT32_MIN : 0);
            else *out = tv_sv_int(op == OP_DIV ? xs / ys : xs % ys);
            return true;
        case OP_BAND: *out = tv_sv_int((int32_t)(x & y)); return true;
        case OP_BOR: *out = tv_sv_int((int32_t)(x | y)); return true;
        case OP_BXOR: *out = tv_sv_int((int32_t)(x ^ y)); return true;
        }
    } else if (k == 2) {
        uint64_t x = (uint64_t)as_long(a), y = (uint64_t)as_long(b);
        int64_t xs = (int64_t)x, ys = (int64_t)y;
        switch (op) {
        case OP_ADD: *out = tv_sv_long((int64_t)(x + y)); return true;
        case OP_SUB: *out = tv_sv_long((int64_t)(x - y)); return true;
        case OP_MUL: *out = tv_sv_long((int64_t)(x * y)); return true;
        case OP_DIV:
        case OP_REM:
            if (ys == 0) return rt_fail(r, off, TROVE_EARITHMETIC, "/ by zero");
            if (xs == INT64_MIN && ys == -1) *out = tv_sv_long(op == OP_DIV ? INT64_MIN : 0);
            else *out = tv_sv_long(op == OP_DIV ? xs / ys : xs % ys);
            return true;
        case OP_BAND: *out = tv_sv_long((int64_t)(x & y)); return true;
        case OP_BOR: *out = tv_sv_long((int64_t)(x | y)); return true;
        case OP_BXOR: *out = tv_sv_long((int64_t)(x ^ y)); return true;
        }
    } else if (k == 3) {
        float x = (float)as_double(a), y = (float)as_double(b);
        if (a->type == TV_SV_LONG) x = (float)a->v.l;
        if (b->type == TV_SV_LONG) y = (float)b->v.l;
        float z = op == OP_ADD ? x + y : op == OP_SUB ? x - y : op == OP_MUL ? x * y : op == OP_DIV ? x / y : fmodf(x, y);
        out->type = TV_SV_FLOAT;
        out->v.f = z;
        return true;
    } else {
        double x = as_double(a), y = as_double(b);
        *out = tv_sv_double(op == OP_ADD ? x + y : op == OP_SUB ? x - y : op == OP_MUL ? x * y : op == OP_DIV ? x / y
                                                                                                        : fmod(x, y));
        return true;
    }
    return bad_op(r, off, op, a, b);
}

/* ---------------------------------------------------- members and indices */

static const char *const no_value =
    "A document doesn't have a value for a field! Use doc[<field>].size()==0 to check if a document is missing a "
    "field!";

static bool list_index(R *r, uint32_t off, const tv_sv_list *l, const tv_sv *key, uint32_t *at, bool brace) {
    if (key->type != TV_SV_INT && key->type != TV_SV_CHAR) {
        if (key->type == TV_SV_NULL) return npe(r, off);
        return rt_fail(r, off, TROVE_ECLASSCAST, "cannot implicitly cast def [%s] to int", unboxed(key));
    }
    int64_t i = key->type == TV_SV_INT ? key->v.i : key->v.c;
    if (l->kind == TV_SV_DOCVALUES && l->len == 0) return rt_fail(r, off, TROVE_EILLEGALSTATE, "%s", no_value);
    int64_t orig = i;
    if (i < 0 && brace) i += l->len; /* Painless normalizes negative indices of [] */
    if (i < 0 || i >= (int64_t)l->len)
        return rt_fail(r, off, l->kind == TV_SV_ARRAYLIST ? TROVE_EINDEXBOUNDS : TROVE_EARRAYINDEX,
                       "Index %lld out of bounds for length %u", (long long)orig, l->len);
    *at = (uint32_t)i;
    return true;
}

static bool is_digits(const char *s, uint32_t n) {
    if (!n) return false;
    for (uint32_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9') return false;
    return true;
}

static bool doc_field(R *r, uint32_t off, const char *name, size_t len, tv_sv *out) {
    if (!r->env->doc) return rt_fail(r, off, TROVE_EUNSUPPORTED, "trove does not support [doc] in this context");
    tv_script_error e;
    memset(&e, 0, sizeof e);
    tv_status st = r->env->doc(r->env->doc_ud, name, len, r->a, out, &e);
    if (st == TROVE_ENOMEM) return rt_oom(r);
    if (st != TROVE_OK) return rt_fail(r, off, e.cause ? e.cause : TROVE_EARG, "%s", e.cause_reason);
    return true;
}

/* ------------------------------------------------ dates, GeoPoints, DayOfWeek */

/* The getters of an object (no arguments): 1 done, 0 failed, -1 none. */
static int obj_getter(R *r, uint32_t off, const tv_sv_obj *o, const char *m, tv_sv *out) {
    if (o->kind == TV_SV_O_TOKEN) { /* AnalysisPredicateScript.Token */
        const tv_sv_token *t = o->tok;
        if (!strcmp(m, "getTerm") || !strcmp(m, "getType")) {
            bool term = m[3] == 'T' && m[4] == 'e';
            if (!tv_sv_string(r->a, term ? t->term : t->type, term ? t->term_len : t->type_len, out))
                return rt_oom(r), 0;
            return 1;
        }
        if (!strcmp(m, "getPosition")) return *out = tv_sv_int(t->position), 1;
        if (!strcmp(m, "getPositionIncrement")) return *out = tv_sv_int(t->position_increment), 1;
        if (!strcmp(m, "getPositionLength")) return *out = tv_sv_int(t->position_length), 1;
        if (!strcmp(m, "getStartOffset")) return *out = tv_sv_int(t->start_offset), 1;
        if (!strcmp(m, "getEndOffset")) return *out = tv_sv_int(t->end_offset), 1;
        if (!strcmp(m, "isKeyword")) return *out = tv_sv_bool(t->keyword), 1;
        return -1;
    }
    if (o->kind == TV_SV_O_GEO) {
        if (!strcmp(m, "getLat")) return *out = tv_sv_double(o->lat), 1;
        if (!strcmp(m, "getLon")) return *out = tv_sv_double(o->lon), 1;
        return -1;
    }
    if (o->kind == TV_SV_O_DOW) {
        if (!strcmp(m, "getValue")) return *out = tv_sv_int((int32_t)o->sec), 1;
        return -1;
    }
    if (o->kind == TV_SV_O_INSTANT) {
        if (!strcmp(m, "getEpochSecond")) return *out = tv_sv_long(o->sec), 1;
        if (!strcmp(m, "getNano")) return *out = tv_sv_int(o->nano), 1;
        return -1;
    }
    tv_sv_civil_t c;
    tv_sv_civil(o->sec, &c);
    if (!strcmp(m, "getYear")) {
        if (c.year > INT32_MAX || c.year < INT32_MIN) return -1;
        return *out = tv_sv_int((int32_t)c.year), 1;
    }
    if (!strcmp(m, "getMonthValue")) return *out = tv_sv_int(c.month), 1;
    if (!strcmp(m, "getDayOfMonth")) return *out = tv_sv_int(c.day), 1;
    if (!strcmp(m, "getDayOfYear")) return *out = tv_sv_int(c.doy), 1;
    if (!strcmp(m, "getHour")) return *out = tv_sv_int(c.hour), 1;
    if (!strcmp(m, "getMinute")) return *out = tv_sv_int(c.minute), 1;
    if (!strcmp(m, "getSecond")) return *out = tv_sv_int(c.second), 1;
    if (!strcmp(m, "getNano")) return *out = tv_sv_int(o->nano), 1;
    if (!strcmp(m, "getDayOfWeek") || !strcmp(m, "getDayOfWeekEnum")) {
        tv_sv_obj *d = tv_arena_calloc(r->a, 1, sizeof *d);
        if (!d) return rt_oom(r), 0;
        d->kind = TV_SV_O_DOW;
        d->sec = c.dow;
        out->type = TV_SV_OBJ;
        out->v.obj = d;
        return 1;
    }
    (void)off;
    return -1;
}

static bool get_field(R *r, uint32_t off, const tv_sv *obj, const char *name, uint32_t nlen, bool nullsafe,
                      tv_sv *out) {
    switch (obj->type) {
    case TV_SV_NULL:
        if (nullsafe) return *out = tv_sv_null(), true;
        return npe(r, off);
    case TV_SV_MAP: {
        const tv_sv *v = tv_sv_map_get_str(obj->v.map, name, nlen);
        *out = v ? *v : tv_sv_null();
        return true;
    }
    case TV_SV_LIST: {
        tv_sv_list *l = obj->v.list;
        if (l->kind == TV_SV_DOCVALUES) {
            if (tv_streq(name, nlen, "value")) {
                if (!l->len) return rt_fail(r, off, TROVE_EILLEGALSTATE, "%s", no_value);
                return *out = l->items[0], true;
            }
            if (tv_streq(name, nlen, "values")) return *out = *obj, true;
            if (tv_streq(name, nlen, "empty")) return *out = tv_sv_bool(l->len == 0), true;
            if (l->dv == TV_SV_DV_GEO && (tv_streq(name, nlen, "lat") || tv_streq(name, nlen, "lon"))) {
                if (!l->len) return rt_fail(r, off, TROVE_EILLEGALSTATE, "%s", no_value);
                const tv_sv_obj *o = l->items[0].v.obj;
                return *out = tv_sv_double(name[1] == 'a' ? o->lat : o->lon), true;
            }
            if (l->dv == TV_SV_DV_GEO && (tv_streq(name, nlen, "lats") || tv_streq(name, nlen, "lons")))
                return rt_fail(r, off, TROVE_EUNSUPPORTED, "trove does not support [GeoPoints.get%s] (double[]) in Painless scripts",
                               name[3] == 't' ? "Lats" : "Lons");
        } else if (l->kind == TV_SV_ARRAY) {
            if (tv_streq(name, nlen, "length")) return *out = tv_sv_int((int32_t)l->len), true;
        } else {
            if (tv_streq(name, nlen, "empty")) return *out = tv_sv_bool(l->len == 0), true;
            if (is_digits(name, nlen) && nlen < 10) {
                tv_sv k = tv_sv_int(atoi(name));
                uint32_t at;
                if (!list_index(r, off, l, &k, &at, true)) return false;
                return *out = l->items[at], true;
            }
        }
        break;
    }
    case TV_SV_ENTRY:
        if (tv_streq(name, nlen, "key")) return *out = obj->v.entry->key, true;
        if (tv_streq(name, nlen, "value")) return *out = obj->v.entry->val, true;
        break;
    case TV_SV_STRING:
        if (tv_streq(name, nlen, "empty")) return *out = tv_sv_bool(obj->v.s->len == 0), true;
        break;
    case TV_SV_OBJ: {
        /* Painless's getters: x.year is x.getYear() */
        char m[64];
        if (nlen == 0 || nlen > 40) break;
        snprintf(m, sizeof m, "get%c%.*s", name[0] >= 'a' && name[0] <= 'z' ? name[0] - 32 : name[0], (int)nlen - 1, name + 1);
        int got = obj_getter(r, off, obj->v.obj, m, out);
        if (got >= 0) return got > 0;
        /* boolean getters: x.keyword is x.isKeyword() */
        snprintf(m, sizeof m, "is%c%.*s", name[0] >= 'a' && name[0] <= 'z' ? name[0] - 32 : name[0], (int)nlen - 1, name + 1);
        got = obj_getter(r, off, obj->v.obj, m, out);
        if (got >= 0) return got > 0;
        break;
    }
    default: break;
    }
    return rt_fail(r, off, TROVE_EARG, "dynamic getter [%s, %.*s] not found", tv_sv_class(obj), (int)nlen, name);
}

static bool set_field(R *r, uint32_t off, const tv_sv *obj, const char *name, uint32_t nlen, tv_sv v) {
    if (obj->type == TV_SV_NULL) return npe(r, off);
    if (obj->type == TV_SV_MAP) {
        if (!tv_sv_map_put_str(r->a, obj->v.map, name, nlen, v)) return rt_oom(r);
        return true;
    }
    if (obj->type == TV_SV_LIST && obj->v.list->kind == TV_SV_ARRAYLIST && is_digits(name, nlen) && nlen < 10) {
        tv_sv k = tv_sv_int(atoi(name));
        uint32_t at;
        if (!list_index(r, off, obj->v.list, &k, &at, true)) return false;
        obj->v.list->items[at] = v;
        return true;
    }
    return rt_fail(r, off, TROVE_EARG, "dynamic setter [%s, %.*s] not found", tv_sv_class(obj), (int)nlen, name);
}

static bool get_index(R *r, uint32_t off, const tv_sv *obj, const tv_sv *key, tv_sv *out) {
    if (obj->type == TV_SV_NULL) return npe(r, off);
    if (obj->type == TV_SV_MAP) {
        const tv_sv *v = tv_sv_map_get(obj->v.map, key);
        *out = v ? *v : tv_sv_null();
        return true;
    }
    if (obj->type == TV_SV_LIST) {
        uint32_t at;
        if (!list_index(r, off, obj->v.list, key, &at, true)) return false;
        *out = obj->v.list->items[at];
        return true;
    }
    return rt_fail(r, off, TROVE_EARG, "Attempting to address a non-array type [%s] as an array.", tv_sv_class(obj));
}

static bool set_index(R *r, uint32_t off, const tv_sv *obj, const tv_sv *key, tv_sv v) {
    if (obj->type == TV_SV_NULL) return npe(r, off);
    if (obj->type == TV_SV_MAP) {
        if (!tv_sv_map_put(r->a, obj->v.map, key, v, NULL, NULL)) return rt_oom(r);
        return true;
    }
    if (obj->type == TV_SV_LIST && obj->v.list->kind != TV_SV_DOCVALUES) {
        uint32_t at;
        if (!list_index(r, off, obj->v.list, key, &at, true)) return false;
        if (obj->v.list->kind == TV_SV_ARRAY && v.type != TV_SV_STRING && v.type != TV_SV_NULL)
            return rt_fail(r, off, TROVE_ECLASSCAST, "cannot implicitly cast def [%s] to java.lang.String",
                           unboxed(&v));
        obj->v.list->items[at] = v;
        return true;
    }
    if (obj->type == TV_SV_LIST) return rt_fail(r, off, TROVE_EUNSUPPORTED, "doc values are read-only");
    return rt_fail(r, off, TROVE_EARG, "Attempting to address a non-array type [%s] as an array.", tv_sv_class(obj));
}

/* --------------------------------------------------------- evaluation */

static bool ev(R *r, const snode *n, tv_sv *out);
static int ex(R *r, const snode *n);

static bool cond(R *r, const snode *n, bool *b) {
    tv_sv v;
    if (!ev(r, n, &v)) return false;
    if (v.type != TV_SV_BOOL) {
        if (v.type == TV_SV_NULL) return npe(r, n->off);
        return rt_fail(r, n->off, TROVE_ECLASSCAST, "cannot implicitly cast def [%s] to boolean", unboxed(&v));
    }
    *b = v.v.b;
    return true;
}

static bool new_list(R *r, tv_sv *out) {
    if (!tv_sv_list_new(r->a, TV_SV_ARRAYLIST, out)) return rt_oom(r);
    return true;
}

static bool list_push(R *r, tv_sv_list *l, tv_sv v) {
    if (!tv_sv_list_add(r->a, l, v)) return rt_oom(r);
    return true;
}

/* ------------------------------------------------------------- methods */

#define M(nm, ar) (tv_streq(n->name, n->nlen, nm) && nargs == (ar))

static bool no_method(R *r, const snode *n, const tv_sv *self, uint32_t nargs) {
    return rt_fail(r, n->off, TROVE_EARG, "dynamic method [%s, %.*s/%u] not found", tv_sv_class(self), (int)n->nlen,
                   n->name, nargs);
}

static bool want_int(R *r, uint32_t off, const tv_sv *v, int32_t *out) {
    if (v->type == TV_SV_INT || v->type == TV_SV_CHAR) return *out = narrow_i(v), true;
    if (v->type == TV_SV_NULL) return npe(r, off);
    return rt_fail(r, off, TROVE_ECLASSCAST, "cannot implicitly cast def [%s] to int", unboxed(v));
}

static bool want_str(R *r, uint32_t off, const tv_sv *v, const tv_sv_str **out) {
    if (v->type == TV_SV_STRING) return *out = v->v.s, true;
    if (v->type == TV_SV_NULL) return npe(r, off);
    return java_cast_msg(r, off, v, "java.lang.String");
}

static bool want_double(R *r, uint32_t off, const tv_sv *v, double *out) {
    if (is_num(v)) return *out = as_double(v), true;
    if (v->type == TV_SV_NULL) return npe(r, off);
    return rt_fail(r, off, TROVE_ECLASSCAST, "cannot implicitly cast def [%s] to double", unboxed(v));
}

/* Comparable.compareTo between two values of one class */
static bool compare_values(R *r, uint32_t off, const tv_sv *a, const tv_sv *b, int *out) {
    if (a->type == TV_SV_NULL || b->type == TV_SV_NULL) return npe(r, off);
    if (a->type != b->type || a->type == TV_SV_LIST || a->type == TV_SV_MAP || a->type == TV_SV_ENTRY) {
        if (a->type == TV_SV_LIST || a->type == TV_SV_MAP || a->type == TV_SV_ENTRY)
            return rt_fail(r, off, TROVE_ECLASSCAST,
                           "class %s cannot be cast to class java.lang.Comparable (%s and java.lang.Comparable are "
                           "in module java.base of loader 'bootstrap')",
                           tv_sv_class(a), tv_sv_class(a));
        return java_cast_msg(r, off, b, tv_sv_class(a));
    }
    switch (a->type) {
    case TV_SV_OBJ: {
        const tv_sv_obj *x = a->v.obj, *y = b->v.obj;
        if (x->kind != y->kind) return java_cast_msg(r, off, b, tv_sv_class(a));
        if (x->kind == TV_SV_O_GEO)
            return rt_fail(r, off, TROVE_ECLASSCAST,
                           "class org.opensearch.common.geo.GeoPoint cannot be cast to class java.lang.Comparable");
        *out = x->sec != y->sec ? (x->sec < y->sec ? -1 : 1) : x->nano != y->nano ? (x->nano < y->nano ? -1 : 1) : 0;
        return true;
    }
    case TV_SV_STRING: {
        /* UTF-16 order: equal to code point order except for surrogates vs U+E000..U+FFFF */
        const uint8_t *p = (const uint8_t *)a->v.s->s, *pe = p + a->v.s->len;
        const uint8_t *q = (const uint8_t *)b->v.s->s, *qe = q + b->v.s->len;
        while (p < pe && q < qe) {
            uint32_t x, y;
            p += tv_utf8_decode(p, pe, &x);
            q += tv_utf8_decode(q, qe, &y);
            if (x != y) {
                uint32_t ux = x >= 0x10000 ? 0xD800 + ((x - 0x10000) >> 10) : x;
                uint32_t uy = y >= 0x10000 ? 0xD800 + ((y - 0x10000) >> 10) : y;
                if (ux != uy) return *out = (int)ux - (int)uy, true;
                return *out = x < y ? -1 : 1, true;
            }
        }
        *out = (int)tv_sv_str_u16len(a->v.s) - (int)tv_sv_str_u16len(b->v.s);
        if (p < pe || q < qe) *out = p < pe ? 1 : -1;
        return true;
    }
    case TV_SV_BOOL: return *out = (int)a->v.b - (int)b->v.b, true;
    case TV_SV_DOUBLE:
    case TV_SV_FLOAT: {
        double x = as_double(a), y = as_double(b);
        if (x < y) return *out = -1, true;
        if (x > y) return *out = 1, true;
        /* Double.compare: -0.0 < 0.0, NaN greatest */
        bool nx = x != x, ny = y != y;
        if (nx || ny) return *out = nx == ny ? 0 : nx ? 1 : -1, true;
        bool sx = signbit(x), sy = signbit(y);
        return *out = sx == sy ? 0 : sx ? -1 : 1, true;
    }
    default: {
        int64_t x = as_long(a), y = as_long(b);
        return *out = x < y ? -1 : x > y, true;
    }
    }
}

/* stable merge sort in natural order (List.sort(null), Collections.sort) */
static bool sort_list(R *r, uint32_t off, tv_sv_list *l, bool reverse) {
    uint32_t n = l->len;
    if (n < 2) return true;
    tv_sv *tmp = tv_arena_alloc(r->a, n * sizeof *tmp);
    if (!tmp) return rt_oom(r);
    for (uint32_t w = 1; w < n; w *= 2) {
        for (uint32_t lo = 0; lo < n; lo += 2 * w) {
            uint32_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            uint32_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) {
                int c;
                if (!compare_values(r, off, &l->items[j], &l->items[i], &c)) return false;
                if (reverse) c = -c;
                tmp[k++] = c < 0 ? l->items[j++] : l->items[i++];
            }
            while (i < mid) tmp[k++] = l->items[i++];
            while (j < hi) tmp[k++] = l->items[j++];
        }
        memcpy(l->items, tmp, n * sizeof *tmp);
    }
    return true;
}

/* The ZonedDateTime methods trove leaves out: a 400 naming them, never
 * "not found" for a method OpenSearch has. */
static const char *const k_zdt_missing[] = {
    "format", "get", "getLong", "getChronology", "getOffset", "getZone", "getMonth", "isSupported", "range",
    "minus", "minusYears", "minusMonths", "minusWeeks", "minusDays", "minusHours", "minusMinutes", "minusSeconds",
    "minusNanos", "plus", "plusYears", "plusMonths", "plusWeeks", "plusDays", "plusHours", "plusMinutes",
    "plusSeconds", "plusNanos", "query", "until", "toLocalDate", "toLocalTime", "toLocalDateTime",
    "toOffsetDateTime", "truncatedTo", "with", "withDayOfMonth", "withDayOfYear", "withEarlierOffsetAtOverlap",
    "withFixedOffsetZone", "withHour", "withLaterOffsetAtOverlap", "withMinute", "withMonth", "withNano",
    "withSecond", "withYear", "withZoneSameLocal", "withZoneSameInstant", "getZonedDateTime",
};

static bool obj_compare(R *r, uint32_t off, const tv_sv_obj *a, const tv_sv *b, int *c) {
    if (b->type == TV_SV_NULL) return npe(r, off);
    if (b->type != TV_SV_OBJ || b->v.obj->kind != a->kind || a->kind == TV_SV_O_GEO)
        return java_cast_msg(r, off, b, a->kind == TV_SV_O_INSTANT ? "java.time.Instant" : "java.time.chrono.ChronoZonedDateTime");
    const tv_sv_obj *o = b->v.obj;
    *c = a->sec != o->sec ? (a->sec < o->sec ? -1 : 1) : a->nano != o->nano ? (a->nano < o->nano ? -1 : 1) : 0;
    return true;
}

static bool obj_method(R *r, const snode *n, const tv_sv *self, const tv_sv *args, uint32_t nargs, tv_sv *out) {
    const tv_sv_obj *o = self->v.obj;
    if (nargs == 0 && n->nlen < 60) {
        char m[64];
        snprintf(m, sizeof m, "%.*s", (int)n->nlen, n->name);
        int got = obj_getter(r, n->off, o, m, out);
        if (got >= 0) return got > 0;
    }
    if (o->kind == TV_SV_O_DATE || o->kind == TV_SV_O_INSTANT) {
        if (M("toEpochSecond", 0) && o->kind == TV_SV_O_DATE) return *out = tv_sv_long(o->sec), true;
        if (M("toEpochMilli", 0) && o->kind == TV_SV_O_INSTANT) {
            /* Math.multiplyExact / addExact: an instant past the long millis overflows */
            int64_t ms;
            if (__builtin_mul_overflow(o->sec, (int64_t)1000, &ms) || __builtin_add_overflow(ms, (int64_t)(o->nano / 1000000), &ms))
                return rt_fail(r, n->off, TROVE_EARITHMETIC, "long overflow");
            return *out = tv_sv_long(ms), true;
        }
        if (M("toInstant", 0) && o->kind == TV_SV_O_DATE) {
            if (!tv_sv_date(r->a, TV_SV_O_INSTANT, o->sec, o->nano, out)) return rt_oom(r);
            return true;
        }
        if (M("isBefore", 1) || M("isAfter", 1) || M("isEqual", 1) || M("compareTo", 1)) {
            int c = 0;
            if (!obj_compare(r, n->off, o, &args[0], &c)) return false;
            if (n->name[0] == 'c') return *out = tv_sv_int(c), true;
            return *out = tv_sv_bool(n->name[2] == 'B' ? c < 0 : n->name[2] == 'A' ? c > 0 : c == 0), true;
        }
        if (o->kind == TV_SV_O_DATE)
            for (size_t i = 0; i < TV_ARRAY_LEN(k_zdt_missing); i++)
                if (tv_streq(n->name, n->nlen, k_zdt_missing[i]))
                    return rt_fail(r, n->off, TROVE_EUNSUPPORTED,
                                   "trove does not support [JodaCompatibleZonedDateTime.%s] in Painless scripts", k_zdt_missing[i]);
    } else if (o->kind == TV_SV_O_DOW) {
        if (M("name", 0)) return str_of(r, self, out);
        if (M("ordinal", 0)) return *out = tv_sv_int((int32_t)o->sec - 1), true;
        if (M("compareTo", 1)) {
            if (args[0].type == TV_SV_NULL) return npe(r, n->off);
            if (args[0].type != TV_SV_OBJ || args[0].v.obj->kind != TV_SV_O_DOW)
                return java_cast_msg(r, n->off, &args[0], "java.lang.Enum");
            return *out = tv_sv_int((int32_t)(o->sec - args[0].v.obj->sec)), true;
        }
        if (M("plus", 1) || M("minus", 1) || M("getDisplayName", 2))
            return rt_fail(r, n->off, TROVE_EUNSUPPORTED, "trove does not support [DayOfWeek.%.*s] in Painless scripts",
                           (int)n->nlen, n->name);
    }
    if (M("equals", 1)) return *out = tv_sv_bool(tv_sv_key_equals(self, &args[0])), true;
    if (M("hashCode", 0)) return *out = tv_sv_int((int32_t)tv_sv_hash(self)), true;
    if (M("toString", 0)) return str_of(r, self, out);
    return no_method(r, n, self, nargs);
}

/* GeoPoints' methods (ScriptDocValues.GeoPoints): distances to (lat, lon)
 * from the first value, by the host's GeoUtils. 1 done, 0 failed, -1 none. */
static bool host_fn(R *r, uint32_t off, tv_script_fn fn, const char *what, const tv_sv *args, uint32_t nargs, tv_sv *out);

static int geo_dv_method(R *r, const snode *n, const tv_sv_list *l, const tv_sv *args, uint32_t nargs, tv_sv *out) {
    bool arc = M("arcDistance", 2) || M("arcDistanceWithDefault", 3);
    bool plane = M("planeDistance", 2) || M("planeDistanceWithDefault", 3);
    if (M("getLat", 0) || M("getLon", 0)) {
        if (!l->len) return rt_fail(r, n->off, TROVE_EILLEGALSTATE, "%s", no_value), 0;
        return *out = tv_sv_double(n->name[4] == 'a' ? l->items[0].v.obj->lat : l->items[0].v.obj->lon), 1;
    }
    if (M("getLats", 0) || M("getLons", 0) || M("geohashDistance", 1) || M("geohashDistanceWithDefault", 2))
        return rt_fail(r, n->off, TROVE_EUNSUPPORTED, "trove does not support [GeoPoints.%.*s] in Painless scripts",
                       (int)n->nlen, n->name), 0;
    if (!arc && !plane) return -1;
    double d[3];
    for (uint32_t i = 0; i < nargs; i++)
        if (!want_double(r, n->off, &args[i], &d[i])) return 0;
    if (nargs == 3 && !l->len) return *out = tv_sv_double(d[2]), 1;
    if (!l->len) return rt_fail(r, n->off, TROVE_EILLEGALSTATE, "%s", no_value), 0;
    tv_sv a[4] = {tv_sv_double(l->items[0].v.obj->lat), tv_sv_double(l->items[0].v.obj->lon), tv_sv_double(d[0]),
                  tv_sv_double(d[1])};
    return host_fn(r, n->off, arc ? TV_SCRIPT_FN_ARC_DISTANCE : TV_SCRIPT_FN_PLANE_DISTANCE,
                   arc ? "arcDistance" : "planeDistance", a, 4, out) ? 1 : 0;
}

static bool common_method(R *r, const snode *n, const tv_sv *self, const tv_sv *args, uint32_t nargs, tv_sv *out,
                          bool *done) {
    *done = true;
    if (M("equals", 1)) return *out = tv_sv_bool(tv_sv_key_equals(self, &args[0])), true;
    if (M("hashCode", 0)) return *out = tv_sv_int((int32_t)tv_sv_hash(self)), true;
    if (M("toString", 0)) return str_of(r, self, out);
    if (M("compareTo", 1) && self->type != TV_SV_LIST && self->type != TV_SV_MAP) {
        int c;
        if (!compare_values(r, n->off, self, &args[0], &c)) return false;
        return *out = tv_sv_int(c), true;
    }
    *done = false;
    return false;
}

static bool list_method(R *r, const snode *n, tv_sv_list *l, const tv_sv *self, const tv_sv *args, uint32_t nargs,
                        tv_sv *out) {
    int32_t i;
    uint32_t at;
    bool ro = l->kind != TV_SV_ARRAYLIST;
    if (l->kind == TV_SV_ARRAY) return no_method(r, n, self, nargs);
    if (M("size", 0)) return *out = tv_sv_int((int32_t)l->len), true;
    if (M("isEmpty", 0)) return *out = tv_sv_bool(l->len == 0), true;
    if (M("get", 1)) {
        if (l->dv == TV_SV_DV_DATES && l->len && args[0].type == TV_SV_INT && args[0].v.i >= 0 &&
            (uint32_t)args[0].v.i >= l->len)
            return rt_fail(r, n->off, TROVE_EINDEXBOUNDS, "attempted to fetch the [%d] date when there are only [%u] dates.",
                           args[0].v.i, l->len);
        if (!list_index(r, n->off, l, &args[0], &at, false)) return false;
        return *out = l->items[at], true;
    }
    if (l->kind == TV_SV_DOCVALUES && l->dv == TV_SV_DV_GEO) {
        int got = geo_dv_method(r, n, l, args, nargs, out);
        if (got >= 0) return got > 0;
    }
    if (M("contains", 1) || M("indexOf", 1) || M("lastIndexOf", 1)) {
        int32_t found = -1;
        for (uint32_t k = 0; k < l->len; k++)
            if (tv_sv_key_equals(&l->items[k], &args[0])) {
                found = (int32_t)k;
                if (n->name[0] != 'l') break;
            }
        if (n->name[0] == 'c') return *out = tv_sv_bool(found >= 0), true;
        return *out = tv_sv_int(found), true;
    }
    if (l->kind == TV_SV_DOCVALUES) {
        if (M("getValue", 0)) {
            if (!l->len) return rt_fail(r, n->off, TROVE_EILLEGALSTATE, "%s", no_value);
            return *out = l->items[0], true;
        }
        if (M("getValues", 0)) return *out = *self, true;
    }
    if (!ro) {
        if (M("add", 1)) {
            if (!list_push(r, l, args[0])) return false;
            return *out = tv_sv_bool(true), true;
        }
        if (M("add", 2)) {
            if (!want_int(r, n->off, &args[0], &i)) return false;
            if (i < 0 || (uint32_t)i > l->len)
                return rt_fail(r, n->off, TROVE_EINDEXBOUNDS, "Index: %d, Size: %u", i, l->len);
            if (!tv_sv_list_reserve(r->a, l, l->len + 1)) return rt_oom(r);
            memmove(&l->items[i + 1], &l->items[i], (l->len - (uint32_t)i) * sizeof *l->items);
            l->items[i] = args[1];
            l->len++;
            return *out = tv_sv_null(), true;
        }
        if (M("set", 2)) {
            if (!want_int(r, n->off, &args[0], &i)) return false;
            if (i < 0 || (uint32_t)i >= l->len)
                return rt_fail(r, n->off, TROVE_EINDEXBOUNDS, "Index %d out of bounds for length %u", i, l->len);
            *out = l->items[i];
            l->items[i] = args[1];
            return true;
        }
        if (M("remove", 1)) {
            if (!want_int(r, n->off, &args[0], &i)) return false;
            if (i < 0 || (uint32_t)i >= l->len)
                return rt_fail(r, n->off, TROVE_EINDEXBOUNDS, "Index %d out of bounds for length %u", i, l->len);
            *out = l->items[i];
            memmove(&l->items[i], &l->items[i + 1], (l->len - (uint32_t)i - 1) * sizeof *l->items);
            l->len--;
            return true;
        }
        if (M("clear", 0)) {
            l->len = 0;
            return *out = tv_sv_null(), true;
        }
        if (M("addAll", 1)) {
            if (args[0].type == TV_SV_NULL) return npe(r, n->off);
            if (args[0].type != TV_SV_LIST) return java_cast_msg(r, n->off, &args[0], "java.util.Collection");
            tv_sv_list *o = args[0].v.list;
            uint32_t m = o->len;
            if (!tv_sv_list_reserve(r->a, l, l->len + m)) return rt_oom(r);
            memmove(&l->items[l->len], o->items, m * sizeof *l->items);
            l->len += m;
            return *out = tv_sv_bool(m > 0), true;
        }
        if (M("sort", 1)) {
            if (args[0].type != TV_SV_NULL)
                return rt_fail(r, n->off, TROVE_EUNSUPPORTED, "trove does not support comparators in Painless scripts");
            if (!sort_list(r, n->off, l, false)) return false;
            return *out = tv_sv_null(), true;
        }
    }
    bool done;
    bool ok = common_method(r, n, self, args, nargs, out, &done);
    if (done) return ok;
    return no_method(r, n, self, nargs);
}

static bool keys_values(R *r, const tv_sv_map *m, int what, tv_sv *out) {
    uint32_t cnt = 0;
    uint32_t *ord = tv_sv_map_order(r->a, m, &cnt);
    if (!ord || !new_list(r, out) || !tv_sv_list_reserve(r->a, out->v.list, cnt)) return rt_oom(r);
    for (uint32_t i = 0; i < cnt; i++) {
        const sv_mentry *e = &m->e[ord[i]];
        tv_sv v;
        if (what == 0) v = e->key;
        else if (what == 1) v = e->val;
        else {
            tv_sv_entry *x = tv_arena_alloc(r->a, sizeof *x);
            if (!x) return rt_oom(r);
            x->key = e->key;
            x->val = e->val;
            v.type = TV_SV_ENTRY;
            v.v.entry = x;
        }
        out->v.list->items[out->v.list->len++] = v;
    }
    return true;
}

static bool map_method(R *r, const snode *n, tv_sv_map *m, const tv_sv *self, const tv_sv *args, uint32_t nargs,
                       tv_sv *out) {
    if (M("get", 1)) {
        const tv_sv *v = tv_sv_map_get(m, &args[0]);
        return *out = v ? *v : tv_sv_null(), true;
    }
    if (M("getOrDefault", 2)) {
        const tv_sv *v = tv_sv_map_get(m, &args[0]);
        return *out = v ? *v : args[1], true;
    }
    if (M("put", 2)) {
        if (!tv_sv_map_put(r->a, m, &args[0], args[1], out, NULL)) return rt_oom(r);
        return true;
    }
    if (M("putIfAbsent", 2)) {
        const tv_sv *v = tv_sv_map_get(m, &args[0]);
        if (v && v->type != TV_SV_NULL) return *out = *v, true;
        if (!tv_sv_map_put(r->a, m, &args[0], args[1], NULL, NULL)) return rt_oom(r);
        return *out = tv_sv_null(), true;
    }
    if (M("containsKey", 1)) return *out = tv_sv_bool(tv_sv_map_get(m, &args[0]) != NULL), true;
    if (M("containsValue", 1)) {
        uint32_t it = 0;
        const tv_sv *k, *v;
        bool f = false;
        while (!f && tv_sv_map_next(m, &it, &k, &v)) f = tv_sv_key_equals(v, &args[0]);
        return *out = tv_sv_bool(f), true;
    }
    if (M("remove", 1)) {
        if (!tv_sv_map_remove(m, &args[0], out)) *out = tv_sv_null();
        return true;
    }
    if (M("size", 0)) return *out = tv_sv_int((int32_t)tv_sv_map_size(m)), true;
    if (M("isEmpty", 0)) return *out = tv_sv_bool(tv_sv_map_size(m) == 0), true;
    if (M("clear", 0)) {
        tv_sv_map_clear(m);
        return *out = tv_sv_null(), true;
    }
    if (M("keySet", 0)) return keys_values(r, m, 0, out);
    if (M("values", 0)) return keys_values(r, m, 1, out);
    if (M("entrySet", 0)) return keys_values(r, m, 2, out);
    if (M("putAll", 1)) {
        if (args[0].type == TV_SV_NULL) return npe(r, n->off);
        if (args[0].type != TV_SV_MAP) return java_cast_msg(r, n->off, &args[0], "java.util.Map");
        uint32_t cnt = 0;
        uint32_t *ord = tv_sv_map_order(r->a, args[0].v.map, &cnt);
        if (!ord) return rt_oom(r);
        for (uint32_t i = 0; i < cnt; i++) {
            const sv_mentry *e = &args[0].v.map->e[ord[i]];
            tv_sv k = e->key, v = e->val;
            if (!tv_sv_map_put(r->a, m, &k, v, NULL, NULL)) return rt_oom(r);
        }
        return *out = tv_sv_null(), true;
    }
    bool done;
    bool ok = common_method(r, n, self, args, nargs, out, &done);
    if (done) return ok;
    return no_method(r, n, self, nargs);
}

static bool make_sub(R *r, const tv_sv_str *s, uint32_t b0, uint32_t b1, tv_sv *out) {
    if (!tv_sv_string(r->a, s->s + b0, b1 - b0, out)) return rt_oom(r);
    return true;
}

/* the byte offset of needle in hay at or after byte from, or -1 */
static int64_t find_bytes(const tv_sv_str *hay, const char *nd, uint32_t nl, uint32_t from, bool last) {
    if (nl > hay->len) return -1;
    if (last) {
        for (int64_t i = (int64_t)hay->len - nl; i >= 0; i--)
            if (memcmp(hay->s + i, nd, nl) == 0) return i;
        return -1;
    }
    for (uint32_t i = from; i + nl <= hay->len; i++)
        if (memcmp(hay->s + i, nd, nl) == 0) return i;
    return -1;
}

static int32_t byte_to_u16(const tv_sv_str *s, int64_t b) {
    if (b < 0) return -1;
    if (s->ascii) return (int32_t)b;
    return (int32_t)tv_utf16_len(s->s, (size_t)b);
}

/* a char or String argument as bytes */
static bool text_arg(R *r, uint32_t off, const tv_sv *v, char *tmp, const char **p, uint32_t *len) {
    if (v->type == TV_SV_CHAR) {
        *len = (uint32_t)tv_utf8_encode(v->v.c, (uint8_t *)tmp);
        *p = tmp;
        return true;
    }
    const tv_sv_str *s = NULL;
    if (!want_str(r, off, v, &s)) return false;
    *p = s->s;
    *len = s->len;
    return true;
}

static bool split(R *r, const snode *n, const tv_sv_str *s, const tv_sv_str *token, bool keep_trailing, tv_sv *out) {
    if (!tv_sv_list_new(r->a, TV_SV_ARRAY, out)) return rt_oom(r);
    tv_sv_list *l = out->v.list;
    if (token->len == 0) return rt_fail(r, n->off, TROVE_EUNSUPPORTED, "trove does not support splitting on an empty pattern");
    uint32_t start = 0;
    for (;;) {
        int64_t at = find_bytes(s, token->s, token->len, start, false);
        tv_sv part;
        uint32_t end = at < 0 ? s->len : (uint32_t)at;
        if (!make_sub(r, s, start, end, &part) || !list_push(r, l, part)) return false;
        if (at < 0) break;
        start = (uint32_t)at + token->len;
    }
    if (!keep_trailing) {
        while (l->len > 0 && l->items[l->len - 1].v.s->len == 0) l->len--;
        if (l->len == 0 && s->len == 0) { /* "".split(x) is [""] */
            tv_sv e;
            if (!make_sub(r, s, 0, 0, &e) || !list_push(r, l, e)) return false;
        }
    }
    return mem_check(r, n->off);
}

static bool string_method(R *r, const snode *n, const tv_sv *self, const tv_sv *args, uint32_t nargs, tv_sv *out) {
    const tv_sv_str *s = self->v.s;
    int32_t a0, a1;
    char tmp[8];
    const char *p;
    uint32_t pl;
    if (M("length", 0)) return *out = tv_sv_int((int32_t)tv_sv_str_u16len(s)), true;
    if (M("isEmpty", 0)) return *out = tv_sv_bool(s->len == 0), true;
    if (M("substring", 1) || M("substring", 2)) {
        int32_t len = (int32_t)tv_sv_str_u16len(s);
        if (!want_int(r, n->off, &args[0], &a0)) return false;
        a1 = len;
        if (nargs == 2 && !want_int(r, n->off, &args[1], &a1)) return false;
        if (a0 < 0 || a1 > len || a0 > a1)
            return rt_fail(r, n->off, TROVE_ESTRINGBOUNDS, "begin %d, end %d, length %d", a0, a1, len);
        return make_sub(r, s, tv_sv_str_byte_at(s, (uint32_t)a0), tv_sv_str_byte_at(s, (uint32_t)a1), out);
    }
    if (M("charAt", 1)) {
        int32_t len = (int32_t)tv_sv_str_u16len(s);
        if (!want_int(r, n->off, &args[0], &a0)) return false;
        if (a0 < 0 || a0 >= len)
            return rt_fail(r, n->off, TROVE_ESTRINGBOUNDS, "Index %d out of bounds for length %d", a0, len);
        uint32_t b = tv_sv_str_byte_at(s, (uint32_t)a0), cp;
        tv_utf8_decode((const uint8_t *)s->s + b, (const uint8_t *)s->s + s->len, &cp);
        out->type = TV_SV_CHAR;
        if (cp >= 0x10000) /* a surrogate pair: this index's unit */
            out->v.c = (uint16_t)(tv_utf16_len(s->s, b) == (size_t)a0 ? 0xD800 + ((cp - 0x10000) >> 10)
                                                                       : 0xDC00 + ((cp - 0x10000) & 0x3FF));
        else
            out->v.c = (uint16_t)cp;
        return true;
    }
    if (M("indexOf", 1) || M("indexOf", 2) || M("lastIndexOf", 1)) {
        if (!text_arg(r, n->off, &args[0], tmp, &p, &pl)) return false;
        uint32_t from = 0;
        if (nargs == 2) {
            if (!want_int(r, n->off, &args[1], &a1)) return false;
            int32_t len = (int32_t)tv_sv_str_u16len(s);
            if (a1 < 0) a1 = 0;
            if (a1 > len) return *out = tv_sv_int(-1), true;
            from = tv_sv_str_byte_at(s, (uint32_t)a1);
        }
        return *out = tv_sv_int(byte_to_u16(s, find_bytes(s, p, pl, from, n->name[0] == 'l'))), true;
    }
    if (M("contains", 1)) {
        if (!text_arg(r, n->off, &args[0], tmp, &p, &pl)) return false;
        return *out = tv_sv_bool(find_bytes(s, p, pl, 0, false) >= 0), true;
    }
    if (M("startsWith", 1) || M("endsWith", 1)) {
        if (!text_arg(r, n->off, &args[0], tmp, &p, &pl)) return false;
        bool ok = pl <= s->len && memcmp(n->name[0] == 's' ? s->s : s->s + s->len - pl, p, pl) == 0;
        return *out = tv_sv_bool(ok), true;
    }
    if (M("toLowerCase", 0) || M("toUpperCase", 0) || M("equalsIgnoreCase", 1)) {
        if (!s->ascii)
            return rt_fail(r, n->off, TROVE_EUNSUPPORTED,
                           "trove does not support [%.*s] of non-ASCII strings in Painless scripts", (int)n->nlen,
                           n->name);
        if (n->name[0] == 'e') {
            const tv_sv_str *o = NULL;
            if (args[0].type != TV_SV_STRING) return *out = tv_sv_bool(false), true;
            o = args[0].v.s;
            if (!o->ascii && o->len == s->len)
                return rt_fail(r, n->off, TROVE_EUNSUPPORTED,
                               "trove does not support [equalsIgnoreCase] of non-ASCII strings in Painless scripts");
            bool eq = o->len == s->len;
            for (uint32_t k = 0; eq && k < s->len; k++) {
                char x = s->s[k], y = o->s[k];
                if (x >= 'A' && x <= 'Z') x += 32;
                if (y >= 'A' && y <= 'Z') y += 32;
                eq = x == y;
            }
            return *out = tv_sv_bool(eq), true;
        }
        if (!tv_sv_string(r->a, s->s, s->len, out)) return rt_oom(r);
        char *d = (char *)out->v.s->s;
        for (uint32_t k = 0; k < s->len; k++) {
            if (n->name[2] == 'L' && d[k] >= 'A' && d[k] <= 'Z') d[k] += 32;
            if (n->name[2] == 'U' && d[k] >= 'a' && d[k] <= 'z') d[k] -= 32;
        }
        return true;
    }
    if (M("trim", 0)) {
        uint32_t b = 0, e = s->len;
        while (b < e && (unsigned char)s->s[b] <= ' ') b++;
        while (e > b && (unsigned char)s->s[e - 1] <= ' ') e--;
        return make_sub(r, s, b, e, out);
    }
    if (M("replace", 2)) {
        char tmp2[8];
        const char *q;
        uint32_t ql;
        if (!text_arg(r, n->off, &args[0], tmp, &p, &pl) || !text_arg(r, n->off, &args[1], tmp2, &q, &ql)) return false;
        /* the result's size first: a run may not take more than its memory cap */
        uint64_t count = 0;
        if (pl == 0) {
            count = (uint64_t)tv_sv_str_u16len(s) + 1;
        } else {
            for (uint32_t start = 0;;) {
                int64_t at = find_bytes(s, p, pl, start, false);
                if (at < 0) break;
                count++;
                start = (uint32_t)at + pl;
            }
        }
        if ((uint64_t)s->len + count * ql > (uint64_t)r->max)
            return rt_fail(r, n->off, TROVE_ELIMIT, "the script took more than [%zu] bytes of memory", r->max);
        tv_buf b;
        tv_buf_init(&b);
        if (pl == 0) { /* Java inserts the replacement around every char */
            const uint8_t *x = (const uint8_t *)s->s, *xe = x + s->len;
            tv_buf_append(&b, q, ql);
            while (x < xe) {
                uint32_t cp;
                size_t cl = tv_utf8_decode(x, xe, &cp);
                tv_buf_append(&b, x, cl);
                tv_buf_append(&b, q, ql);
                x += cl;
            }
        } else {
            uint32_t start = 0;
            for (;;) {
                int64_t at = find_bytes(s, p, pl, start, false);
                if (at < 0) break;
                tv_buf_append(&b, s->s + start, (size_t)at - start);
                tv_buf_append(&b, q, ql);
                start = (uint32_t)at + pl;
            }
            tv_buf_append(&b, s->s + start, s->len - start);
        }
        bool ok = tv_sv_string_buf(r->a, &b, out);
        tv_buf_fini(&b);
        return ok ? mem_check(r, n->off) : rt_oom(r);
    }
    if (M("concat", 1)) {
        const tv_sv_str *o = NULL;
        if (!want_str(r, n->off, &args[0], &o)) return false;
        return concat(r, n->off, self, &args[0], out);
    }
    if (M("split", 1) || M("splitOnToken", 1)) {
        const tv_sv_str *t = NULL;
        if (!want_str(r, n->off, &args[0], &t)) return false;
        if (n->name[5] != 'O') {
            for (uint32_t k = 0; k < t->len; k++)
                if (strchr(".$|()[{^?*+\\", t->s[k]))
                    return rt_fail(r, n->off, TROVE_EUNSUPPORTED,
                                   "trove does not support regular expressions in Painless scripts ([split] with "
                                   "pattern [%s])",
                                   t->s);
        }
        return split(r, n, s, t, n->name[5] == 'O', out);
    }
    if (M("matches", 1) || M("replaceAll", 2) || M("replaceFirst", 2))
        return rt_fail(r, n->off, TROVE_EUNSUPPORTED, "trove does not support regular expressions in Painless scripts");
    bool done;
    bool ok = common_method(r, n, self, args, nargs, out, &done);
    if (done) return ok;
    return no_method(r, n, self, nargs);
}

static bool number_method(R *r, const snode *n, const tv_sv *self, const tv_sv *args, uint32_t nargs, tv_sv *out) {
    if (M("intValue", 0)) return *out = num_cast(self, TY_INT), true;
    if (M("longValue", 0)) return *out = num_cast(self, TY_LONG), true;
    if (M("doubleValue", 0)) return *out = num_cast(self, TY_DOUBLE), true;
    if (M("floatValue", 0)) return *out = num_cast(self, TY_FLOAT), true;
    if ((M("isNaN", 0) || M("isInfinite", 0)) && (self->type == TV_SV_DOUBLE || self->type == TV_SV_FLOAT)) {
        double d = as_double(self);
        return *out = tv_sv_bool(n->name[2] == 'N' ? d != d : isinf(d)), true;
    }
    bool done;
    bool ok = common_method(r, n, self, args, nargs, out, &done);
    if (done) return ok;
    return no_method(r, n, self, nargs);
}

static bool call_method(R *r, const snode *n, const tv_sv *self, const tv_sv *args, uint32_t nargs, tv_sv *out) {
    switch (self->type) {
    case TV_SV_LIST: return list_method(r, n, self->v.list, self, args, nargs, out);
    case TV_SV_MAP: return map_method(r, n, self->v.map, self, args, nargs, out);
    case TV_SV_STRING: return string_method(r, n, self, args, nargs, out);
    case TV_SV_ENTRY:
        if (M("getKey", 0)) return *out = self->v.entry->key, true;
        if (M("getValue", 0)) return *out = self->v.entry->val, true;
        if (M("setValue", 1)) return rt_fail(r, n->off, TROVE_EUNSUPPORTED, "trove does not support [Map.Entry.setValue]");
        break;
    case TV_SV_BOOL:
        if (M("booleanValue", 0)) return *out = *self, true;
        break;
    case TV_SV_CHAR:
        if (M("charValue", 0)) return *out = *self, true;
        break;
    case TV_SV_INT:
    case TV_SV_LONG:
    case TV_SV_FLOAT:
    case TV_SV_DOUBLE: return number_method(r, n, self, args, nargs, out);
    case TV_SV_OBJ: return obj_method(r, n, self, args, nargs, out);
    default: break;
    }
    bool done;
    bool ok = common_method(r, n, self, args, nargs, out, &done);
    if (done) return ok;
    return no_method(r, n, self, nargs);
}

/* ------------------------------------------------------ static methods */

static bool nfe(R *r, uint32_t off, const tv_sv_str *s) {
    return rt_fail(r, off, TROVE_ENUMBERFORMAT, "For input string: \"%s\"", s->s);
}

static bool parse_long(R *r, uint32_t off, const tv_sv *v, int64_t lo, int64_t hi, int64_t *out) {
    const tv_sv_str *s = NULL;
    if (v->type == TV_SV_NULL)
        return rt_fail(r, off, TROVE_ENUMBERFORMAT, "Cannot parse null string: null");
    if (!want_str(r, off, v, &s)) return false;
    const char *p = s->s;
    size_t n = s->len;
    bool neg = false;
    if (n && (p[0] == '-' || p[0] == '+')) {
        neg = p[0] == '-';
        p++;
        n--;
    }
    if (!n) return nfe(r, off, s);
    uint64_t x = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] < '0' || p[i] > '9') return nfe(r, off, s);
        if (x > (UINT64_MAX - 9) / 10) return nfe(r, off, s);
        x = x * 10 + (uint64_t)(p[i] - '0');
    }
    if (neg ? x > (uint64_t)hi + 1 : x > (uint64_t)hi) return nfe(r, off, s);
    (void)lo;
    *out = neg ? (int64_t)(0 - x) : (int64_t)x;
    return true;
}

static bool parse_double(R *r, uint32_t off, const tv_sv *v, double *out) {
    const tv_sv_str *s = NULL;
    if (v->type == TV_SV_NULL) return npe(r, off);
    if (!want_str(r, off, v, &s)) return false;
    if (!tv_java_double_syntax(s->s, s->len)) {
        size_t b = 0, e = s->len;
        while (b < e && (unsigned char)s->s[b] <= ' ') b++;
        while (e > b && (unsigned char)s->s[e - 1] <= ' ') e--;
        if (b == e) return rt_fail(r, off, TROVE_ENUMBERFORMAT, "%s", s->len ? "empty String" : "empty String");
        return nfe(r, off, s);
    }
    char buf[512];
    size_t n = s->len < sizeof buf - 1 ? s->len : sizeof buf - 1;
    memcpy(buf, s->s, n);
    buf[n] = 0;
    /* Java's suffixes and names */
    char *t = buf;
    while (*t && (unsigned char)*t <= ' ') t++;
    size_t tl = strlen(t);
    while (tl && (unsigned char)t[tl - 1] <= ' ') t[--tl] = 0;
    if (tl && strchr("fFdD", t[tl - 1])) t[--tl] = 0;
    *out = strtod(t, NULL);
    return true;
}

static bool math_fn(R *r, const snode *n, const tv_sv *args, uint32_t nargs, tv_sv *out) {
    double x, y;
    if (M("abs", 1)) {
        const tv_sv *a = &args[0];
        if (a->type == TV_SV_NULL) return npe(r, n->off);
        switch (a->type) {
        case TV_SV_CHAR:
        case TV_SV_INT: return *out = tv_sv_int(narrow_i(a) < 0 ? (int32_t)(0u - (uint32_t)narrow_i(a)) : narrow_i(a)), true;
        case TV_SV_LONG: return *out = tv_sv_long(a->v.l < 0 ? (int64_t)(0ull - (uint64_t)a->v.l) : a->v.l), true;
        case TV_SV_FLOAT: *out = *a; out->v.f = fabsf(a->v.f); return true;
        case TV_SV_DOUBLE: return *out = tv_sv_double(fabs(a->v.d)), true;
        default: return rt_fail(r, n->off, TROVE_ECLASSCAST, "cannot implicitly cast def [%s] to double", unboxed(a));
        }
    }
    if (M("max", 2) || M("min", 2)) {
        const tv_sv *a = &args[0], *b = &args[1];
        if (!is_num(a) || !is_num(b)) {
            if (a->type == TV_SV_NULL || b->type == TV_SV_NULL) return npe(r, n->off);
            return rt_fail(r, n->off, TROVE_ECLASSCAST, "cannot implicitly cast def [%s] to double",
                           unboxed(is_num(a) ? b : a));
        }
        int k = rank(a) > rank(b) ? rank(a) : rank(b);
        bool mx = n->name[1] == 'a';
        if (k <= 2) {
            int64_t p = as_long(a), q = as_long(b), z = mx ? (p > q ? p : q) : (p < q ? p : q);
            *out = k == 1 ? tv_sv_int((int32_t)z) : tv_sv_long(z);
            return true;
        }
        x = as_double(a);
        y = as_double(b);
        double z;
        if (x != x || y != y) z = NAN;
        else if (x == y && x == 0) z = mx ? (signbit(x) ? y : x) : (signbit(x) ? x : y);
        else z = mx ? (x > y ? x : y) : (x < y ? x : y);
        if (k == 3) {
            out->type = TV_SV_FLOAT;
            out->v.f = (float)z;
        } else {
            *out = tv_sv_double(z);
        }
        return true;
    }
    if (M("round", 1)) {
        if (args[0].type == TV_SV_FLOAT) {
            float f = args[0].v.f;
            if (f != f) return *out = tv_sv_int(0), true;
            double fl = floor((double)f);
            return *out = tv_sv_int(d2i(fl + ((double)f - fl >= 0.5 ? 1 : 0))), true;
        }
        if (!want_double(r, n->off, &args[0], &x)) return false;
        if (x != x) return *out = tv_sv_long(0), true;
        double fl = floor(x);
        return *out = tv_sv_long(tv_java_d2l(fl + (x - fl >= 0.5 ? 1 : 0))), true;
    }
    if (M("random", 0)) return *out = tv_sv_double((double)(tv_mono_ns() % 1000003) / 1000003.0), true;
    if (M("signum", 1)) {
        if (!want_double(r, n->off, &args[0], &x)) return false;
        double z = x > 0 ? 1.0 : x < 0 ? -1.0 : x;
        if (args[0].type == TV_SV_FLOAT) {
            out->type = TV_SV_FLOAT;
            out->v.f = (float)z;
            return true;
        }
        return *out = tv_sv_double(z), true;
    }
    static const struct {
        const char *name;
        double (*f1)(double);
    } one[] = {{"sqrt", sqrt}, {"cbrt", cbrt}, {"log", log},   {"log10", log10}, {"log1p", log1p},
               {"exp", exp},   {"expm1", expm1}, {"floor", floor}, {"ceil", ceil}, {"sin", sin},
               {"cos", cos},   {"tan", tan},   {"asin", asin}, {"acos", acos},   {"atan", atan},
               {"sinh", sinh}, {"cosh", cosh}, {"tanh", tanh}, {"rint", rint}};
    for (size_t i = 0; i < TV_ARRAY_LEN(one); i++)
        if (M(one[i].name, 1)) {
            if (!want_double(r, n->off, &args[0], &x)) return false;
            return *out = tv_sv_double(one[i].f1(x)), true;
        }
    if (M("toRadians", 1) || M("toDegrees", 1)) {
        if (!want_double(r, n->off, &args[0], &x)) return false;
        return *out = tv_sv_double(n->name[2] == 'R' ? x / 180.0 * M_PI : x * 180.0 / M_PI), true;
    }
    if (M("pow", 2) || M("atan2", 2) || M("hypot", 2)) {
        if (!want_double(r, n->off, &args[0], &x) || !want_double(r, n->off, &args[1], &y)) return false;
        double z = n->name[0] == 'p' ? pow(x, y) : n->name[0] == 'a' ? atan2(x, y) : hypot(x, y);
        return *out = tv_sv_double(z), true;
    }
    return rt_fail(r, n->off, TROVE_EARG, "unknown call [%.*s] with [%u] arguments on type [Math]", (int)n->nlen,
                   n->name, nargs);
}

/* A MovingFunctions method's double[] argument: the list's numbers. */
static bool movfn_values(R *r, const snode *n, const tv_sv *v, double **out, size_t *cnt) {
    if (v->type != TV_SV_LIST)
        return rt_fail(r, n->off, TROVE_ECLASSCAST, "Cannot cast %s to double[]", tv_sv_class(v));
    const tv_sv_list *l = v->v.list;
    double *d = tv_arena_alloc(r->env->arena, (l->len ? l->len : 1) * sizeof *d);
    if (!d) return rt_fail(r, n->off, TROVE_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < l->len; i++)
        if (!want_double(r, n->off, &l->items[i], &d[i])) return false;
    *out = d;
    *cnt = l->len;
    return true;
}

/* MovingFunctions (movfn.c): the moving-function context's class. */
static bool movfn_fn(R *r, const snode *n, const tv_sv *args, uint32_t nargs, tv_sv *out) {
    double *v = NULL, a[4] = {0};
    size_t cnt = 0;
    static const struct {
        const char *name;
        uint32_t nargs;
    } k[] = {{"max", 1}, {"min", 1}, {"sum", 1}, {"unweightedAvg", 1}, {"linearWeightedAvg", 1},
             {"stdDev", 2}, {"ewma", 2}, {"holt", 3}, {"holtWinters", 6}};
    size_t f = 0;
    while (f < TV_ARRAY_LEN(k) && !M(k[f].name, k[f].nargs)) f++;
    if (f == TV_ARRAY_LEN(k))
        return rt_fail(r, n->off, TROVE_EARG, "unknown call [%.*s] with [%u] arguments on type [MovingFunctions]",
                       (int)n->nlen, n->name, nargs);
    if (!movfn_values(r, n, &args[0], &v, &cnt)) return false;
    for (uint32_t i = 1; i < nargs && i <= 4; i++)
        if (!(f == 8 && i == 4) && !want_double(r, n->off, &args[i], &a[i - 1])) return false;
    switch (f) {
    case 0: return *out = tv_sv_double(tv_movfn_max(v, cnt)), true;
    case 1: return *out = tv_sv_double(tv_movfn_min(v, cnt)), true;
    case 2: return *out = tv_sv_double(tv_movfn_sum(v, cnt)), true;
    case 3: return *out = tv_sv_double(tv_movfn_unweighted_avg(v, cnt)), true;
    case 4: return *out = tv_sv_double(tv_movfn_linear_weighted_avg(v, cnt)), true;
    case 5: return *out = tv_sv_double(tv_movfn_std_dev(v, cnt, a[0])), true;
    case 6: return *out = tv_sv_double(tv_movfn_ewma(v, cnt, a[0])), true;
    case 7: return *out = tv_sv_double(tv_movfn_holt(v, cnt, a[0], a[1])), true;
    default: {
        /* holtWinters(double[], double, double, double, int period, boolean multiplicative) */
        if (args[4].type != TV_SV_INT && args[4].type != TV_SV_CHAR)
            return rt_fail(r, n->off, TROVE_ECLASSCAST, "Cannot cast %s to int", tv_sv_class(&args[4]));
        if (args[5].type != TV_SV_BOOL)
            return rt_fail(r, n->off, TROVE_ECLASSCAST, "Cannot cast %s to boolean", tv_sv_class(&args[5]));
        tv_error err;
        tv_error_clear(&err);
        double d;
        int period = args[4].type == TV_SV_CHAR ? args[4].v.c : args[4].v.i;
        if (tv_movfn_holt_winters(v, cnt, a[0], a[1], a[2], period, args[5].v.b, &d, &err))
            return rt_fail(r, n->off, err.code == TROVE_ENOMEM ? TROVE_ENOMEM : TROVE_EARG, "%s", err.reason);
        return *out = tv_sv_double(d), true;
    }
    }
}

static bool call_static(R *r, const snode *n, const tv_sv *args, uint32_t nargs, tv_sv *out) {
    sty t = (sty)n->type;
    int64_t l = 0;
    double d = 0;
    switch (t) {
    case TY_MATH: return math_fn(r, n, args, nargs, out);
    case TY_MOVFN: return movfn_fn(r, n, args, nargs, out);
    case TY_INT_B:
    case TY_LONG_B: {
        bool isint = t == TY_INT_B;
        if (M("parseInt", 1) || M("parseLong", 1) || (M("valueOf", 1) && args[0].type == TV_SV_STRING)) {
            if (!parse_long(r, n->off, &args[0], isint ? INT32_MIN : INT64_MIN, isint ? INT32_MAX : INT64_MAX, &l))
                return false;
            *out = isint ? tv_sv_int((int32_t)l) : tv_sv_long(l);
            return true;
        }
        if (M("valueOf", 1)) {
            *out = args[0];
            return implicit(r, n->off, out, isint ? TY_INT : TY_LONG);
        }
        if (M("toString", 1)) {
            tv_sv v = args[0];
            if (!implicit(r, n->off, &v, isint ? TY_INT : TY_LONG)) return false;
            return str_of(r, &v, out);
        }
        if (M("compare", 2)) {
            tv_sv a = args[0], b = args[1];
            if (!implicit(r, n->off, &a, isint ? TY_INT : TY_LONG) || !implicit(r, n->off, &b, isint ? TY_INT : TY_LONG))
                return false;
            int64_t x = as_long(&a), y = as_long(&b);
            return *out = tv_sv_int(x < y ? -1 : x > y), true;
        }
        if (M("max", 2) || M("min", 2) || M("sum", 2)) {
            tv_sv a = args[0], b = args[1];
            if (!implicit(r, n->off, &a, isint ? TY_INT : TY_LONG) || !implicit(r, n->off, &b, isint ? TY_INT : TY_LONG))
                return false;
            if (n->name[0] == 's') return arith(r, n->off, OP_ADD, &a, &b, out);
            return math_fn(r, n, args, nargs, out) && (*out = num_cast(out, isint ? TY_INT : TY_LONG), true);
        }
        break;
    }
    case TY_DOUBLE_B:
    case TY_FLOAT_B: {
        bool isf = t == TY_FLOAT_B;
        if (M("parseDouble", 1) || M("parseFloat", 1) || (M("valueOf", 1) && args[0].type == TV_SV_STRING)) {
            if (!parse_double(r, n->off, &args[0], &d)) return false;
            if (isf) {
                const tv_sv_str *s = args[0].v.s;
                char buf[512];
                size_t k = s->len < sizeof buf - 1 ? s->len : sizeof buf - 1;
                memcpy(buf, s->s, k);
                buf[k] = 0;
                out->type = TV_SV_FLOAT;
                out->v.f = strtof(buf, NULL);
                return true;
            }
            return *out = tv_sv_double(d), true;
        }
        if (M("valueOf", 1)) {
            *out = args[0];
            return implicit(r, n->off, out, isf ? TY_FLOAT : TY_DOUBLE);
        }
        if (M("toString", 1)) {
            tv_sv v = args[0];
            if (!implicit(r, n->off, &v, isf ? TY_FLOAT : TY_DOUBLE)) return false;
            return str_of(r, &v, out);
        }
        if (M("isNaN", 1) || M("isInfinite", 1) || M("isFinite", 1)) {
            if (!want_double(r, n->off, &args[0], &d)) return false;
            bool b = n->name[2] == 'N' ? d != d : n->name[2] == 'I' ? isinf(d) : isfinite(d);
            return *out = tv_sv_bool(b), true;
        }
        if (M("compare", 2)) {
            tv_sv a = args[0], b = args[1];
            int c;
            if (!implicit(r, n->off, &a, TY_DOUBLE) || !implicit(r, n->off, &b, TY_DOUBLE) ||
                !compare_values(r, n->off, &a, &b, &c))
                return false;
            return *out = tv_sv_int(c), true;
        }
        if (M("max", 2) || M("min", 2) || M("sum", 2)) {
            tv_sv a = args[0], b = args[1];
            if (!implicit(r, n->off, &a, isf ? TY_FLOAT : TY_DOUBLE) || !implicit(r, n->off, &b, isf ? TY_FLOAT : TY_DOUBLE))
                return false;
            tv_sv ab[2] = {a, b};
            if (n->name[0] == 's') return arith(r, n->off, OP_ADD, &a, &b, out);
            return math_fn(r, n, ab, nargs, out);
        }
        break;
    }
    case TY_BOOLEAN_B:
        if (M("parseBoolean", 1) || (M("valueOf", 1) && args[0].type != TV_SV_BOOL)) {
            if (args[0].type == TV_SV_NULL) return *out = tv_sv_bool(false), true;
            const tv_sv_str *s = NULL;
            if (!want_str(r, n->off, &args[0], &s)) return false;
            return *out = tv_sv_bool(s->len == 4 && (s->s[0] | 32) == 't' && (s->s[1] | 32) == 'r' &&
                                     (s->s[2] | 32) == 'u' && (s->s[3] | 32) == 'e'),
                   true;
        }
        if (M("valueOf", 1)) return *out = args[0], true;
        if (M("toString", 1)) {
            if (args[0].type != TV_SV_BOOL) return implicit(r, n->off, (tv_sv *)&args[0], TY_BOOLEAN);
            return str_of(r, &args[0], out);
        }
        break;
    case TY_STRING:
        if (M("valueOf", 1)) return str_of(r, &args[0], out);
        if (tv_streq(n->name, n->nlen, "join") && nargs >= 1) {
            const tv_sv_str *sep = NULL;
            if (!want_str(r, n->off, &args[0], &sep)) return false;
            const tv_sv *items = args + 1;
            uint32_t cnt = nargs - 1;
            if (nargs == 2 && args[1].type == TV_SV_LIST) {
                items = args[1].v.list->items;
                cnt = args[1].v.list->len;
            }
            uint64_t total = 0;
            for (uint32_t i = 0; i < cnt; i++)
                total += sep->len + (items[i].type == TV_SV_STRING ? items[i].v.s->len : 4);
            if (total > (uint64_t)r->max)
                return rt_fail(r, n->off, TROVE_ELIMIT, "the script took more than [%zu] bytes of memory", r->max);
            tv_buf b;
            tv_buf_init(&b);
            for (uint32_t i = 0; i < cnt; i++) {
                if (i) tv_buf_append(&b, sep->s, sep->len);
                if (items[i].type != TV_SV_STRING && items[i].type != TV_SV_NULL) {
                    tv_buf_fini(&b);
                    return java_cast_msg(r, n->off, &items[i], "java.lang.CharSequence");
                }
                tv_sv_to_string(&b, &items[i]);
            }
            bool ok = tv_sv_string_buf(r->a, &b, out);
            tv_buf_fini(&b);
            return ok ? mem_check(r, n->off) : rt_oom(r);
        }
        if (tv_streq(n->name, n->nlen, "format"))
            return rt_fail(r, n->off, TROVE_EUNSUPPORTED, "trove does not support [String.format] in Painless scripts");
        break;
    case TY_COLLECTIONS:
        if (M("sort", 1) || M("reverse", 1) || M("max", 1) || M("min", 1)) {
            if (args[0].type == TV_SV_NULL) return npe(r, n->off);
            if (args[0].type != TV_SV_LIST) return java_cast_msg(r, n->off, &args[0], "java.util.List");
            tv_sv_list *lst = args[0].v.list;
            if (n->name[0] == 's') return sort_list(r, n->off, lst, false) && (*out = tv_sv_null(), true);
            if (n->name[0] == 'r') {
                for (uint32_t i = 0, j = lst->len; i + 1 < j; i++, j--) {
                    tv_sv x = lst->items[i];
                    lst->items[i] = lst->items[j - 1];
                    lst->items[j - 1] = x;
                }
                return *out = tv_sv_null(), true;
            }
            if (!lst->len) return rt_fail(r, n->off, TROVE_ENOSUCHELEMENT, "%s", "");
            *out = lst->items[0];
            for (uint32_t i = 1; i < lst->len; i++) {
                int c;
                if (!compare_values(r, n->off, &lst->items[i], out, &c)) return false;
                if (n->name[1] == 'a' ? c > 0 : c < 0) *out = lst->items[i];
            }
            return true;
        }
        if (M("emptyList", 0)) return new_list(r, out);
        if (M("singletonList", 1)) return new_list(r, out) && list_push(r, out->v.list, args[0]);
        break;
    case TY_OBJECTS:
        if (M("equals", 2)) return *out = tv_sv_bool(tv_sv_key_equals(&args[0], &args[1])), true;
        if (M("isNull", 1)) return *out = tv_sv_bool(args[0].type == TV_SV_NULL), true;
        if (M("nonNull", 1)) return *out = tv_sv_bool(args[0].type != TV_SV_NULL), true;
        if (M("toString", 1)) return str_of(r, &args[0], out);
        if (M("hashCode", 1)) return *out = tv_sv_int((int32_t)tv_sv_hash(&args[0])), true;
        if (M("requireNonNull", 1)) {
            if (args[0].type == TV_SV_NULL) return rt_fail(r, n->off, TROVE_ENULLPOINTER, "%s", "");
            return *out = args[0], true;
        }
        break;
    default: break;
    }
    return rt_fail(r, n->off, TROVE_EARG, "static method [%s, %.*s/%u] not found", tv_script_type_name(t),
                   (int)n->nlen, n->name, nargs);
}

static bool construct(R *r, const snode *n, const tv_sv *args, uint32_t nargs, tv_sv *out) {
    sty t = (sty)n->type;
    if (t == TY_ARRAYLIST) {
        if (!new_list(r, out)) return false;
        if (nargs == 0) return true;
        if (nargs == 1 && (args[0].type == TV_SV_INT || args[0].type == TV_SV_CHAR)) {
            if (narrow_i(&args[0]) < 0)
                return rt_fail(r, n->off, TROVE_EARG, "Illegal Capacity: %d", narrow_i(&args[0]));
            return true;
        }
        if (nargs == 1 && args[0].type == TV_SV_LIST) {
            tv_sv_list *o = args[0].v.list;
            if (!tv_sv_list_reserve(r->a, out->v.list, o->len)) return rt_oom(r);
            memcpy(out->v.list->items, o->items, o->len * sizeof *o->items);
            out->v.list->len = o->len;
            return mem_check(r, n->off);
        }
        if (nargs == 1 && args[0].type == TV_SV_NULL) return npe(r, n->off);
    } else if (t == TY_HASHMAP || t == TY_LINKEDHASHMAP) {
        if (!tv_sv_map_new(r->a, t == TY_LINKEDHASHMAP, out)) return rt_oom(r);
        if (nargs == 0) return true;
        if (nargs == 1 && (args[0].type == TV_SV_INT || args[0].type == TV_SV_CHAR)) {
            if (narrow_i(&args[0]) < 0)
                return rt_fail(r, n->off, TROVE_EARG, "Illegal initial capacity: %d", narrow_i(&args[0]));
            return true;
        }
        if (nargs == 1 && args[0].type == TV_SV_MAP) {
            uint32_t cnt = 0;
            uint32_t *ord = tv_sv_map_order(r->a, args[0].v.map, &cnt);
            if (!ord) return rt_oom(r);
            for (uint32_t i = 0; i < cnt; i++) {
                const sv_mentry *e = &args[0].v.map->e[ord[i]];
                tv_sv k = e->key;
                if (!tv_sv_map_put(r->a, out->v.map, &k, e->val, NULL, NULL)) return rt_oom(r);
            }
            return mem_check(r, n->off);
        }
        if (nargs == 1 && args[0].type == TV_SV_NULL) return npe(r, n->off);
    } else if (t == TY_STRING) {
        if (nargs == 0) return tv_sv_string(r->a, "", 0, out) ? true : rt_oom(r);
        if (nargs == 1 && args[0].type == TV_SV_STRING) return *out = args[0], true;
    }
    return rt_fail(r, n->off, TROVE_EARG, "constructor [%s, <init>/%u] not found", tv_script_type_name(t), nargs);
}

static bool load(R *r, const snode *L, tv_sv *obj, tv_sv *key, tv_sv *cur) {
    switch (L->k) {
    case N_LOCAL: *cur = r->slots[L->slot]; return true;
    case N_FIELD: return get_field(r, L->off, obj, L->name, L->nlen, false, cur);
    default: return get_index(r, L->off, obj, key, cur);
    }
}

static bool store(R *r, const snode *L, tv_sv *obj, tv_sv *key, tv_sv *v) {
    switch (L->k) {
    case N_LOCAL:
        if (!implicit(r, L->off, v, (sty)r->s->slot_type[L->slot])) return false;
        r->slots[L->slot] = *v;
        return true;
    case N_FIELD: return set_field(r, L->off, obj, L->name, L->nlen, *v);
    default: return set_index(r, L->off, obj, key, *v);
    }
}

static bool lvalue_target(R *r, const snode *L, tv_sv *obj, tv_sv *key) {
    if (L->k == N_LOCAL) return true;
    if (L->k == N_INDEX && L->a->k == N_DOC)
        return rt_fail(r, L->off, TROVE_EUNSUPPORTED, "doc values are read-only");
    if (!ev(r, L->a, obj)) return false;
    if (L->k == N_INDEX && !ev(r, L->b, key)) return false;
    return true;
}

/* a compound result back into the local's type (Java's implicit narrowing of op=) */
static bool compound_cast(R *r, const snode *L, tv_sv *v) {
    if (L->k != N_LOCAL) return true;
    sty t = (sty)r->s->slot_type[L->slot];
    sty u = unbox_ty(t);
    if (is_prim(u) && u != TY_BOOLEAN && is_num(v)) *v = num_cast(v, u);
    return true;
}

static bool assign(R *r, const snode *n, tv_sv *out) {
    const snode *L = n->a;
    tv_sv obj = tv_sv_null(), key = tv_sv_null(), v;
    if (!lvalue_target(r, L, &obj, &key)) return false;
    if (n->op == OP_NONE) {
        if (!ev(r, n->b, &v)) return false;
    } else {
        tv_sv cur, rhs;
        if (!load(r, L, &obj, &key, &cur) || !ev(r, n->b, &rhs)) return false;
        if (!arith(r, n->off, n->op, &cur, &rhs, &v) || !compound_cast(r, L, &v)) return false;
    }
    if (!store(r, L, &obj, &key, &v)) return false;
    *out = v;
    return true;
}

static bool incdec(R *r, const snode *n, tv_sv *out) {
    const snode *L = n->a;
    tv_sv obj = tv_sv_null(), key = tv_sv_null(), cur, v;
    if (!lvalue_target(r, L, &obj, &key) || !load(r, L, &obj, &key, &cur)) return false;
    tv_sv one = tv_sv_int(1);
    if (!is_num(&cur)) return bad_op(r, n->off, n->op, &cur, NULL);
    if (!arith(r, n->off, n->op, &cur, &one, &v)) return false;
    if (cur.type == TV_SV_CHAR || (L->k == N_LOCAL && is_prim(unbox_ty((sty)r->s->slot_type[L->slot]))))
        v = num_cast(&v, cur.type == TV_SV_CHAR ? TY_CHAR : unbox_ty((sty)r->s->slot_type[L->slot]));
    else if (L->k != N_LOCAL || r->s->slot_type[L->slot] == TY_DEF) {
        /* def ++ keeps the operand's type: Integer stays Integer */
        if (cur.type == TV_SV_INT) v = num_cast(&v, TY_INT);
        else if (cur.type == TV_SV_FLOAT) v = num_cast(&v, TY_FLOAT);
    }
    if (!store(r, L, &obj, &key, &v)) return false;
    *out = n->flag ? v : cur;
    return true;
}

/* ------------------------------------------------------ imported functions */

static bool host_fn(R *r, uint32_t off, tv_script_fn fn, const char *what, const tv_sv *args, uint32_t nargs, tv_sv *out) {
    if (!r->env->host) return rt_fail(r, off, TROVE_EUNSUPPORTED, "trove does not support [%s] in this context", what);
    tv_script_error e;
    memset(&e, 0, sizeof e);
    tv_status st = r->env->host(r->env->host_ud, fn, args, nargs, r->a, out, &e);
    if (st == TROVE_ENOMEM) return rt_oom(r);
    if (st != TROVE_OK) return rt_fail(r, off, e.cause ? e.cause : TROVE_EARG, "%s", e.cause_reason);
    return true;
}

/* Math.max(0.0, x): NaN stays NaN */
static double max0(double x) { return x != x ? x : x > 0.0 ? x : 0.0; }

/* A parameter of an imported function: the value converted to its type
 * ('d' double, 'i' int, 's' String, 'g' GeoPoint, 't' a date), as
 * Painless casts a def argument. */
static bool param_of(R *r, uint32_t off, char ty, tv_sv *v) {
    switch (ty) {
    case 'd': return implicit(r, off, v, TY_DOUBLE);
    case 'i': return implicit(r, off, v, TY_INT);
    case 's':
        if (v->type == TV_SV_NULL) return npe(r, off);
        return implicit(r, off, v, TY_STRING);
    case 'g':
        if (v->type == TV_SV_NULL) return npe(r, off);
        if (v->type != TV_SV_OBJ || v->v.obj->kind != TV_SV_O_GEO)
            return java_cast_msg(r, off, v, "org.opensearch.common.geo.GeoPoint");
        return true;
    default:
        if (v->type == TV_SV_NULL) return npe(r, off);
        if (v->type != TV_SV_OBJ || v->v.obj->kind != TV_SV_O_DATE)
            return java_cast_msg(r, off, v, "org.opensearch.script.JodaCompatibleZonedDateTime");
        return true;
    }
}

static bool import_call(R *r, const snode *n, tv_sv *out) {
    const char *sig;
    switch ((tv_script_fn)n->slot) {
    case TV_SCRIPT_FN_SATURATION: sig = "dd"; break;
    case TV_SCRIPT_FN_SIGMOID: sig = "ddd"; break;
    case TV_SCRIPT_FN_RANDOM_DOC: sig = "i"; break;
    case TV_SCRIPT_FN_RANDOM_FIELD: sig = "is"; break;
    case TV_SCRIPT_FN_DECAY_GEO_LINEAR:
    case TV_SCRIPT_FN_DECAY_GEO_EXP:
    case TV_SCRIPT_FN_DECAY_GEO_GAUSS: sig = "sssdg"; break;
    case TV_SCRIPT_FN_DECAY_DATE_LINEAR:
    case TV_SCRIPT_FN_DECAY_DATE_EXP:
    case TV_SCRIPT_FN_DECAY_DATE_GAUSS: sig = "sssdt"; break;
    default: sig = "ddddd"; break;
    }
    uint32_t ctor = n->flag;
    tv_script_bind *b = ctor && r->env->binds ? &r->env->binds[n->st1] : NULL;
    tv_sv args[5];
    for (uint32_t i = 0; i < n->n && i < 5; i++) {
        if (b && b->set && i < ctor) { /* the instance made at the first call: its arguments are not evaluated again */
            args[i] = b->args[i];
            continue;
        }
        if (!ev(r, n->kids[i], &args[i]) || !param_of(r, n->kids[i]->off, sig[i], &args[i])) return false;
    }
    if (b && !b->set) {
        for (uint32_t i = 0; i < ctor && i < TV_SCRIPT_BIND_ARGS; i++) {
            b->args[i] = args[i];
            if (args[i].type == TV_SV_STRING &&
                !tv_sv_string(r->env->bind_arena, args[i].v.s->s, args[i].v.s->len, &b->args[i]))
                return rt_oom(r);
        }
        b->set = true;
    }
    const double *dv = NULL;
    double d[5];
    for (uint32_t i = 0; i < n->n && i < 5; i++) d[i] = args[i].type == TV_SV_DOUBLE ? args[i].v.d : 0;
    dv = d;
    switch ((tv_script_fn)n->slot) {
    case TV_SCRIPT_FN_SATURATION: /* value / (k + value) */
        return *out = tv_sv_double(dv[0] / (dv[1] + dv[0])), true;
    case TV_SCRIPT_FN_SIGMOID: /* value^a / (k^a + value^a) */
        return *out = tv_sv_double(pow(dv[0], dv[2]) / (pow(dv[1], dv[2]) + pow(dv[0], dv[2]))), true;
    case TV_SCRIPT_FN_DECAY_NUM_LINEAR: { /* origin, scale, offset, decay, docValue */
        double scaling = dv[1] / (1.0 - dv[3]);
        double dist = max0(fabs(dv[4] - dv[0]) - dv[2]);
        return *out = tv_sv_double(max0((scaling - dist) / scaling)), true;
    }
    case TV_SCRIPT_FN_DECAY_NUM_EXP: {
        double scaling = log(dv[3]) / dv[1];
        double dist = max0(fabs(dv[4] - dv[0]) - dv[2]);
        return *out = tv_sv_double(exp(scaling * dist)), true;
    }
    case TV_SCRIPT_FN_DECAY_NUM_GAUSS: {
        double scaling = 0.5 * pow(dv[1], 2.0) / log(dv[3]);
        double dist = max0(fabs(dv[4] - dv[0]) - dv[2]);
        return *out = tv_sv_double(exp(0.5 * pow(dist, 2.0) / scaling)), true;
    }
    default: break;
    }
    char what[64];
    snprintf(what, sizeof what, "%.*s", (int)TV_MIN(n->nlen, 60), n->name);
    return host_fn(r, n->off, (tv_script_fn)n->slot, what, args, n->n, out);
}

static bool eval_args(R *r, const snode *n, tv_sv **args) {
    *args = n->n ? tv_arena_alloc(r->a, n->n * sizeof **args) : NULL;
    if (n->n && !*args) return rt_oom(r);
    for (uint32_t i = 0; i < n->n; i++)
        if (!ev(r, n->kids[i], &(*args)[i])) return false;
    return true;
}

static bool ev_node(R *r, const snode *n, tv_sv *out);

/* Evaluation recurses over the tree: a chain the parser builds without
 * recursing (a + b + c ..., a.b.c ...) is bounded here. */
#define MAX_EVAL_DEPTH 1000

static bool ev(R *r, const snode *n, tv_sv *out) {
    if (++r->depth > MAX_EVAL_DEPTH) {
        r->depth--;
        return rt_fail(r, n->off, TROVE_EARG, "script is nested too deeply");
    }
    bool ok = ev_node(r, n, out);
    r->depth--;
    return ok;
}

static bool ev_node(R *r, const snode *n, tv_sv *out) {
    switch (n->k) {
    case N_CONST: *out = n->lit; return true;
    case N_LOCAL: *out = r->slots[n->slot]; return true;
    case N_PARAMS: *out = r->params; return true;
    case N_CTX: *out = r->env->ctx; return true;
    case N_SCORE: *out = tv_sv_double(r->env->score); return true;
    case N_VALUES: *out = r->env->values; return true;
    case N_AGGVALUE: *out = r->env->agg_value; return true;
    case N_TOKEN: *out = r->env->token; return true;
    case N_DOC: return rt_fail(r, n->off, TROVE_EUNSUPPORTED, "trove does not support [doc] other than doc['field']");
    case N_FIELD: {
        if (n->a->k == N_DOC) return doc_field(r, n->off, n->name, n->nlen, out);
        tv_sv obj;
        if (!ev(r, n->a, &obj)) return false;
        return get_field(r, n->off, &obj, n->name, n->nlen, n->flag, out);
    }
    case N_INDEX: {
        tv_sv obj, key;
        if (n->a->k == N_DOC) {
            if (!ev(r, n->b, &key)) return false;
            if (key.type != TV_SV_STRING) return java_cast_msg(r, n->off, &key, "java.lang.String");
            return doc_field(r, n->off, key.v.s->s, key.v.s->len, out);
        }
        if (!ev(r, n->a, &obj) || !ev(r, n->b, &key)) return false;
        return get_index(r, n->off, &obj, &key, out);
    }
    case N_CALL: {
        tv_sv self, *args;
        if (n->a->k == N_DOC) {
            if (tv_streq(n->name, n->nlen, "containsKey") && n->n == 1) {
                if (!eval_args(r, n, &args)) return false;
                if (args[0].type != TV_SV_STRING) return java_cast_msg(r, n->off, &args[0], "java.lang.String");
                tv_sv dv;
                tv_script_error e;
                memset(&e, 0, sizeof e);
                tv_status st = r->env->doc ? r->env->doc(r->env->doc_ud, args[0].v.s->s, args[0].v.s->len, r->a, &dv, &e)
                                           : TROVE_EARG;
                if (st == TROVE_ENOMEM) return rt_oom(r);
                *out = tv_sv_bool(st == TROVE_OK);
                return true;
            }
            if (tv_streq(n->name, n->nlen, "get") && n->n == 1) {
                if (!eval_args(r, n, &args)) return false;
                if (args[0].type != TV_SV_STRING) return java_cast_msg(r, n->off, &args[0], "java.lang.String");
                return doc_field(r, n->off, args[0].v.s->s, args[0].v.s->len, out);
            }
            return rt_fail(r, n->off, TROVE_EUNSUPPORTED, "trove does not support [doc.%.*s]", (int)n->nlen, n->name);
        }
        if (!ev(r, n->a, &self)) return false;
        if (self.type == TV_SV_NULL && n->flag) return *out = tv_sv_null(), true;
        if (!eval_args(r, n, &args)) return false;
        if (self.type == TV_SV_NULL) return npe(r, n->off);
        return call_method(r, n, &self, args, n->n, out) && mem_check(r, n->off);
    }
    case N_SCALL: {
        tv_sv *args;
        if (!eval_args(r, n, &args)) return false;
        return call_static(r, n, args, n->n, out) && mem_check(r, n->off);
    }
    case N_HCALL: return import_call(r, n, out);
    case N_NEW: {
        tv_sv *args;
        if (!eval_args(r, n, &args)) return false;
        return construct(r, n, args, n->n, out);
    }
    case N_LISTINIT: {
        if (!new_list(r, out)) return false;
        for (uint32_t i = 0; i < n->n; i++) {
            tv_sv v;
            if (!ev(r, n->kids[i], &v) || !list_push(r, out->v.list, v)) return false;
        }
        return mem_check(r, n->off);
    }
    case N_MAPINIT: {
        if (!tv_sv_map_new(r->a, false, out)) return rt_oom(r);
        for (uint32_t i = 0; i + 1 < n->n; i += 2) {
            tv_sv k, v;
            if (!ev(r, n->kids[i], &k) || !ev(r, n->kids[i + 1], &v)) return false;
            if (!tv_sv_map_put(r->a, out->v.map, &k, v, NULL, NULL)) return rt_oom(r);
        }
        return mem_check(r, n->off);
    }
    case N_UNARY: {
        tv_sv a;
        if (!ev(r, n->a, &a)) return false;
        if (n->op == OP_NOT) {
            if (a.type != TV_SV_BOOL) return bad_op(r, n->off, n->op, &a, NULL);
            return *out = tv_sv_bool(!a.v.b), true;
        }
        int k = rank(&a);
        if (!k || (n->op == OP_BNOT && k > 2)) return bad_op(r, n->off, n->op, &a, NULL);
        if (n->op == OP_BNOT) {
            *out = k == 1 ? tv_sv_int(~narrow_i(&a)) : tv_sv_long(~a.v.l);
            return true;
        }
        if (a.type == TV_SV_CHAR) a = tv_sv_int(a.v.c);
        if (n->op == OP_POS) return *out = a, true;
        switch (a.type) {
        case TV_SV_INT: *out = tv_sv_int((int32_t)(0u - (uint32_t)a.v.i)); break;
        case TV_SV_LONG: *out = tv_sv_long((int64_t)(0ull - (uint64_t)a.v.l)); break;
        case TV_SV_FLOAT: *out = a; out->v.f = -a.v.f; break;
        default: *out = tv_sv_double(-a.v.d); break;
        }
        return true;
    }
    case N_BINARY: {
        tv_sv a, b;
        if (!ev(r, n->a, &a) || !ev(r, n->b, &b)) return false;
        return arith(r, n->off, n->op, &a, &b, out);
    }
    case N_AND:
    case N_OR: {
        bool x;
        if (!cond(r, n->a, &x)) return false;
        if (n->k == N_AND ? !x : x) return *out = tv_sv_bool(x), true;
        if (!cond(r, n->b, &x)) return false;
        return *out = tv_sv_bool(x), true;
    }
    case N_COND: {
        bool x;
        if (!cond(r, n->a, &x)) return false;
        return ev(r, x ? n->b : n->c, out);
    }
    case N_ELVIS:
        if (!ev(r, n->a, out)) return false;
        if (out->type != TV_SV_NULL) return true;
        return ev(r, n->b, out);
    case N_ASSIGN: return assign(r, n, out);
    case N_INCDEC: return incdec(r, n, out);
    case N_CAST:
        if (!ev(r, n->a, out)) return false;
        return explicit_cast(r, n->off, out, (sty)n->type);
    case N_INSTANCEOF: {
        tv_sv a;
        if (!ev(r, n->a, &a)) return false;
        return *out = tv_sv_bool(instance_of(&a, (sty)n->type)), true;
    }
    default: return rt_fail(r, n->off, TROVE_EINTERNAL, "not an expression");
    }
}

static bool loop_tick(R *r, uint32_t off) {
    if (++r->loops > TV_SCRIPT_MAX_LOOP)
        return rt_fail(r, off, TROVE_EPAINLESS,
                       "The maximum number of statements that can be executed in a loop has been reached.");
    return mem_check(r, off);
}

static tv_sv default_of(sty t) {
    switch (t) {
    case TY_BOOLEAN: return tv_sv_bool(false);
    case TY_BYTE:
    case TY_SHORT:
    case TY_INT: return tv_sv_int(0);
    case TY_CHAR: {
        tv_sv v = {.type = TV_SV_CHAR};
        return v;
    }
    case TY_LONG: return tv_sv_long(0);
    case TY_FLOAT: {
        tv_sv v = {.type = TV_SV_FLOAT};
        return v;
    }
    case TY_DOUBLE: return tv_sv_double(0);
    default: return tv_sv_null();
    }
}

/* the body of a loop: normal/continue go on, break stops, the rest returns */
#define LOOP_BODY(r, body)                          \
    do {                                            \
        int c_ = ex(r, body);                       \
        if (c_ == C_BREAK) goto loop_end;           \
        if (c_ == C_RETURN || c_ == C_ERROR) return c_; \
    } while (0)

static int ex(R *r, const snode *n) {
    tv_sv v;
    uint32_t saved = r->stmt;
    r->stmt = n->off;
    int res = C_NORMAL;
    switch (n->k) {
    case N_BLOCK:
        for (uint32_t i = 0; i < n->n; i++) {
            int c = ex(r, n->kids[i]);
            if (c != C_NORMAL) return c;
        }
        break;
    case N_EXPR:
        if (!ev(r, n->a, &v)) return C_ERROR;
        break;
    case N_DECL:
        if (n->a) {
            if (!ev(r, n->a, &v)) return C_ERROR;
        } else {
            v = default_of((sty)n->type);
        }
        if (!implicit(r, n->off, &v, (sty)n->type)) return C_ERROR;
        r->slots[n->slot] = v;
        break;
    case N_IF: {
        bool b;
        if (!cond(r, n->a, &b)) return C_ERROR;
        if (b) return ex(r, n->b);
        if (n->c) return ex(r, n->c);
        break;
    }
    case N_WHILE:
        for (;;) {
            bool b;
            if (!cond(r, n->a, &b)) return C_ERROR;
            if (!b) break;
            if (!loop_tick(r, n->off)) return C_ERROR;
            LOOP_BODY(r, n->b);
        }
        break;
    case N_DO:
        for (;;) {
            if (!loop_tick(r, n->off)) return C_ERROR;
            LOOP_BODY(r, n->b);
            bool b;
            if (!cond(r, n->a, &b)) return C_ERROR;
            if (!b) break;
        }
        break;
    case N_FOR:
        if (n->a) {
            int c = ex(r, n->a);
            if (c != C_NORMAL) return c;
        }
        for (;;) {
            if (n->b) {
                bool b;
                if (!cond(r, n->b, &b)) return C_ERROR;
                if (!b) break;
            }
            if (!loop_tick(r, n->off)) return C_ERROR;
            LOOP_BODY(r, n->d);
            if (n->c)
                for (uint32_t i = 0; i < n->c->n; i++)
                    if (!ev(r, n->c->kids[i], &v)) return C_ERROR;
        }
        break;
    case N_FOREACH: {
        tv_sv it;
        if (!ev(r, n->a, &it)) return C_ERROR;
        if (it.type == TV_SV_NULL) return npe(r, n->a->off), C_ERROR;
        if (it.type != TV_SV_LIST) {
            rt_fail(r, n->a->off, TROVE_EARG, "Cannot generate an iterator for type [%s].", tv_sv_class(&it));
            return C_ERROR;
        }
        tv_sv_list *l = it.v.list;
        uint32_t len0 = l->len;
        for (uint32_t i = 0; i < l->len; i++) {
            if (!loop_tick(r, n->off)) return C_ERROR;
            v = l->items[i];
            if (!implicit(r, n->off, &v, (sty)n->type)) return C_ERROR;
            r->slots[n->slot] = v;
            LOOP_BODY(r, n->d);
            if (l->len != len0 && l->kind == TV_SV_ARRAYLIST) {
                if (i + 1 == l->len) break; /* hasNext() is false: Java ends without noticing */
                rt_fail(r, n->off, TROVE_ECONCMOD, "%s", "");
                return C_ERROR;
            }
        }
        break;
    }
    case N_BREAK: res = C_BREAK; break;
    case N_CONTINUE: res = C_CONTINUE; break;
    case N_RETURN:
        if (n->a) {
            if (!ev(r, n->a, &r->ret)) return C_ERROR;
        } else {
            r->ret = tv_sv_null();
        }
        res = C_RETURN;
        break;
    default: rt_fail(r, n->off, TROVE_EINTERNAL, "not a statement"); return C_ERROR;
    }
    r->stmt = saved;
    return res;
loop_end:
    r->stmt = saved;
    return C_NORMAL;
}

uint32_t tv_script_nbinds(const tv_script *s) { return s->nbinds; }

tv_status tv_script_run(const tv_script *s, tv_script_env *env, tv_sv *result, tv_script_error *err) {
    memset(err, 0, sizeof *err);
    R r;
    memset(&r, 0, sizeof r);
    r.s = s;
    r.env = env;
    r.a = env->arena;
    r.err = err;
    r.base = env->arena->total;
    r.max = env->max_bytes ? env->max_bytes : (size_t)64 << 20;
    r.params = env->params;
    if (r.params.type != TV_SV_MAP && !tv_sv_map_new(r.a, false, &r.params)) return err->code = TROVE_ENOMEM;
    r.slots = tv_arena_alloc(r.a, ((size_t)s->nslots + 1) * sizeof *r.slots);
    if (!r.slots) return err->code = TROVE_ENOMEM;
    for (uint32_t i = 0; i < s->nslots; i++) r.slots[i] = tv_sv_null();
    r.ret = tv_sv_null();
    int c = ex(&r, s->root);
    if (c == C_ERROR) {
        if (!err->code) err->code = TROVE_EINTERNAL;
        return err->code;
    }
    if (result) *result = r.ret;
    return TROVE_OK;
}
