/*
 * parse.c — Painless source to a resolved AST, compile errors, the cache.
 *
 * A recursive-descent parser over lex.c's tokens with Java's precedence
 * (assignment, ?: and elvis, ||, &&, |, ^, &, equality, relational and
 * instanceof, shifts, additive, multiplicative, unary and casts, postfix
 * member access, calls, indexing, ?. and ++/--). Names are resolved while
 * parsing: a scope stack maps each declared local to a slot of the run's
 * frame (one slot per declaration, so nothing is looked up by name at
 * run time), type names are reserved words as in Painless (so `(int) x`
 * and `int x` are told apart from expressions by one token of lookahead),
 * and an unknown name is "cannot resolve symbol [x]" at its offset.
 * Painless's statement rules: the last statement of a block or script may
 * omit its `;`, a variable may not shadow one of an enclosing scope, an
 * expression statement must have an effect, and the script's last
 * expression statement is its value (implicit return).
 *
 * Compile errors are reported as PainlessScriptEngine does: ScriptException
 * "compile error", the stack an excerpt of 25 characters either side of
 * the offset ("... " and " ..." where cut) and a pointer line.
 * Alternatives rejected: a separate resolver pass (it would walk the same
 * scopes again); an ANTLR-compatible error recovery (Painless's messages
 * list ANTLR's expected-token sets, which trove cannot reproduce; trove
 * says "invalid sequence of tokens near [x]." for every syntax error).
 *
 * The cache keeps the 100 most recently used scripts by (source,
 * globals), like script.cache.max_size; a hit takes a reference.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

#include "script_int.h"

static const struct {
    const char *name;
    sty t;
} type_names[] = {
    {"def", TY_DEF},           {"Object", TY_OBJECT},       {"boolean", TY_BOOLEAN}, {"byte", TY_BYTE},
    {"short", TY_SHORT},       {"char", TY_CHAR},           {"int", TY_INT},         {"long", TY_LONG},
    {"float", TY_FLOAT},       {"double", TY_DOUBLE},       {"Boolean", TY_BOOLEAN_B}, {"Character", TY_CHAR_B},
    {"Integer", TY_INT_B},     {"Long", TY_LONG_B},         {"Float", TY_FLOAT_B},   {"Double", TY_DOUBLE_B},
    {"Number", TY_NUMBER},     {"String", TY_STRING},       {"List", TY_LIST},       {"ArrayList", TY_ARRAYLIST},
    {"Map", TY_MAP},           {"HashMap", TY_HASHMAP},     {"LinkedHashMap", TY_LINKEDHASHMAP},
    {"Collection", TY_COLLECTION}, {"Math", TY_MATH},       {"Collections", TY_COLLECTIONS},
    {"Objects", TY_OBJECTS},     {"MovingFunctions", TY_MOVFN},
};

sty tv_script_type_named(const char *s, size_t n) {
    for (size_t i = 0; i < TV_ARRAY_LEN(type_names); i++)
        if (tv_streq(s, n, type_names[i].name)) return type_names[i].t;
    return TY_NONE;
}

const char *tv_script_type_name(sty t) {
    for (size_t i = 0; i < TV_ARRAY_LEN(type_names); i++)
        if (type_names[i].t == t) return type_names[i].name;
    if (t == TY_ENTRY) return "Map.Entry";
    return "def";
}

/* names Painless knows as types but trove does not run */
static const char *const foreign_types[] = {
    "Set", "HashSet", "TreeMap", "TreeSet", "LinkedList", "Iterator", "StringBuilder", "BigDecimal", "BigInteger",
    "Instant", "ZonedDateTime", "LocalDate", "LocalDateTime", "Duration", "ChronoUnit", "DateTimeFormatter",
    "Pattern", "Matcher", "Arrays", "Random", "UUID", "Base64", "Optional", "Stream", "Collectors", "Deque",
    "ArrayDeque", "Queue", "PriorityQueue", "Character", "System", "Function", "Predicate", "Comparator", "Byte",
    "Short", "Iterable", "Debug", "Processors", "ZoneId", "ZoneOffset", "TimeUnit",
};

/* ------------------------------------------------------------ the parser */

typedef struct pvar {
    const char *name;
    uint32_t len;
    int32_t slot;
} pvar;

typedef struct P {
    tv_script *s;
    tv_arena *a;
    const char *src;
    size_t len;
    tok *t;
    size_t nt, i;
    unsigned globals;
    TV_VEC(pvar) vars;
    TV_VEC(uint8_t) slot_types;
    TV_VEC(uint32_t) stmts;
    int depth;
    int loops;
    bool failed, oom;
    bool unresolved; /* a name did not resolve: reported after parsing, as
                        Painless's syntax errors come first */
    uint32_t unres_off;
    char unres_msg[256];
    uint32_t nbinds; /* class-binding call sites numbered so far */
    uint32_t err_off;
    tv_status cause;
    char msg[512];
} P;

#define MAX_DEPTH 200

static bool fail(P *p, uint32_t off, tv_status cause, const char *fmt, ...) TV_PRINTF(4, 5);
static bool fail(P *p, uint32_t off, tv_status cause, const char *fmt, ...) {
    if (p->failed) return false;
    p->failed = true;
    p->err_off = off;
    p->cause = cause;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->msg, sizeof p->msg, fmt, ap);
    va_end(ap);
    return false;
}

static void *oom(P *p) {
    p->oom = true;
    p->failed = true;
    return NULL;
}

static tok *cur(P *p) { return &p->t[p->i]; }
static tok *peek(P *p, size_t k) { return &p->t[p->i + k < p->nt ? p->i + k : p->nt - 1]; }
static bool is_p(const tok *t, const char *s) { return t->kind == T_PUNCT && strcmp(t->p, s) == 0; }
static bool is_kw(const tok *t, const char *s) { return t->kind == T_ID && tv_streq(t->val, t->vlen, s); }
static sty tok_type(const tok *t) { return t->kind == T_ID ? tv_script_type_named(t->val, t->vlen) : TY_NONE; }

static bool unexpected(P *p) {
    tok *t = cur(p);
    if (t->kind == T_EOF) return fail(p, t->off, TROVE_EARG, "unexpected end of script.");
    return fail(p, t->off, TROVE_EARG, "invalid sequence of tokens near [%.*s].", (int)t->len, p->src + t->off);
}

static bool accept(P *p, const char *s) {
    if (is_p(cur(p), s)) {
        p->i++;
        return true;
    }
    return false;
}

static bool expect(P *p, const char *s) {
    if (accept(p, s)) return true;
    return unexpected(p);
}

static snode *node(P *p, uint8_t k, uint32_t off) {
    snode *n = tv_arena_calloc(p->a, 1, sizeof *n);
    if (!n) return oom(p);
    n->k = k;
    n->off = off;
    n->st0 = off; /* where the expression starts (postfix nodes: their target's start) */
    return n;
}

typedef TV_VEC(snode *) nvec;

static bool finish_kids(P *p, snode *n, nvec *v) {
    n->n = (uint32_t)v->len;
    if (v->len) {
        n->kids = tv_arena_alloc(p->a, v->len * sizeof *n->kids);
        if (!n->kids) {
            tv_vec_fini(v);
            oom(p);
            return false;
        }
        memcpy(n->kids, v->items, v->len * sizeof *n->kids);
    }
    tv_vec_fini(v);
    return true;
}

static const char *const reserved[] = {"if", "else", "while", "do", "for", "in", "continue", "break", "return",
                                       "new", "try", "catch", "throw", "this", "instanceof", "true", "false",
                                       "null"};

static bool is_reserved(const tok *t) {
    if (t->kind != T_ID) return false;
    for (size_t i = 0; i < TV_ARRAY_LEN(reserved); i++)
        if (tv_streq(t->val, t->vlen, reserved[i])) return true;
    return tok_type(t) != TY_NONE;
}

static bool foreign(const tok *t) {
    if (t->kind != T_ID) return false;
    for (size_t i = 0; i < TV_ARRAY_LEN(foreign_types); i++)
        if (tv_streq(t->val, t->vlen, foreign_types[i])) return true;
    return false;
}

static bool unsupported(P *p, uint32_t off, const char *what) {
    return fail(p, off, TROVE_EUNSUPPORTED, "trove does not support %s in Painless scripts", what);
}

/* ---- scopes ---- */

static int32_t declare(P *p, const tok *name, sty type) {
    for (size_t i = 0; i < p->vars.len; i++) {
        pvar *v = &p->vars.items[i];
        if (v->name && v->len == name->vlen && memcmp(v->name, name->val, v->len) == 0) {
            fail(p, name->off, TROVE_EARG, "variable [%.*s] is already defined in the scope", (int)name->vlen,
                 name->val);
            return -1;
        }
    }
    if (p->slot_types.len >= 65535) {
        fail(p, name->off, TROVE_EARG, "too many variables");
        return -1;
    }
    int32_t slot = (int32_t)p->slot_types.len;
    pvar v = {name->val, name->vlen, slot};
    if (tv_vec_push(&p->vars, v) || tv_vec_push(&p->slot_types, (uint8_t)type)) {
        oom(p);
        return -1;
    }
    return slot;
}

static size_t scope_mark(P *p) { return p->vars.len; }
static void scope_pop(P *p, size_t mark) { p->vars.len = mark; }

/* ---- expressions ---- */

static snode *expr(P *p);
static snode *unary(P *p);
static snode *statement(P *p, bool last_allowed);

static bool enter(P *p) {
    if (++p->depth > MAX_DEPTH) {
        fail(p, cur(p)->off, TROVE_EARG, "script is nested too deeply");
        return false;
    }
    return true;
}

static bool args(P *p, nvec *v) {
    if (!expect(p, "(")) return false;
    if (accept(p, ")")) return true;
    for (;;) {
        snode *e = expr(p);
        if (!e) return false;
        if (tv_vec_push(v, e)) return oom(p), false;
        if (accept(p, ")")) return true;
        if (!expect(p, ",")) return false;
    }
}

static snode *number(P *p, const tok *t, bool neg) {
    snode *n = node(p, N_CONST, t->off);
    if (!n) return NULL;
    char buf[128];
    size_t l = t->vlen < sizeof buf - 2 ? t->vlen : sizeof buf - 2;
    size_t o = 0;
    if (neg) buf[o++] = '-';
    memcpy(buf + o, t->val, l);
    buf[o + l] = 0;
    if (t->kind == T_INTLIT) {
        bool isl = l && (t->val[l - 1] == 'l' || t->val[l - 1] == 'L');
        if (isl) buf[o + l - 1] = 0;
        const char *digits = buf + o;
        int base = 10;
        if (digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
            base = 16;
            digits += 2;
        } else if (digits[0] == '0' && digits[1]) {
            base = 8;
            digits += 1;
        }
        uint64_t v = 0;
        bool over = *digits == 0;
        for (const char *c = digits; *c; c++) {
            int d = *c >= '0' && *c <= '9' ? *c - '0' : (*c | 0x20) - 'a' + 10;
            if (d >= base) over = true;
            if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base) over = true;
            v = v * (uint64_t)base + (uint64_t)d;
        }
        uint64_t lim = isl ? (uint64_t)INT64_MAX + (neg ? 1 : 0) : (uint64_t)INT32_MAX + (neg ? 1 : 0);
        if (over || v > lim) {
            fail(p, t->off, TROVE_EARG, "Invalid %s constant [%s].", isl ? "long" : "int", buf);
            return NULL;
        }
        if (isl)
            n->lit = tv_sv_long(neg ? (int64_t)(0 - v) : (int64_t)v);
        else
            n->lit = tv_sv_int(neg ? (int32_t)(uint32_t)(0 - (uint32_t)v) : (int32_t)v);
    } else {
        char last = t->val[l - 1];
        bool isf = last == 'f' || last == 'F';
        if (last == 'f' || last == 'F' || last == 'd' || last == 'D') buf[o + l - 1] = 0;
        if (isf) {
            float f = strtof(buf, NULL);
            if (isinf(f)) {
                fail(p, t->off, TROVE_EARG, "Invalid float constant [%s].", buf);
                return NULL;
            }
            n->lit.type = TV_SV_FLOAT;
            n->lit.v.f = f;
        } else {
            double d = strtod(buf, NULL);
            if (isinf(d)) {
                fail(p, t->off, TROVE_EARG, "Invalid double constant [%s].", buf);
                return NULL;
            }
            n->lit = tv_sv_double(d);
        }
    }
    return n;
}

static snode *variable(P *p, tok *t) {
    for (size_t i = p->vars.len; i-- > 0;) {
        pvar *v = &p->vars.items[i];
        if (v->len == t->vlen && memcmp(v->name, t->val, v->len) == 0) {
            snode *n = node(p, N_LOCAL, t->off);
            if (n) n->slot = v->slot;
            return n;
        }
    }
    uint8_t k = 0;
    if (tv_streq(t->val, t->vlen, "params"))
        k = N_PARAMS;
    else if (tv_streq(t->val, t->vlen, "ctx") && (p->globals & TV_SCRIPT_G_CTX))
        k = N_CTX;
    else if (tv_streq(t->val, t->vlen, "doc") && (p->globals & TV_SCRIPT_G_DOC))
        k = N_DOC;
    else if (tv_streq(t->val, t->vlen, "_score") && (p->globals & TV_SCRIPT_G_SCORE))
        k = N_SCORE;
    else if (tv_streq(t->val, t->vlen, "values") && (p->globals & TV_SCRIPT_G_VALUES))
        k = N_VALUES;
    else if (tv_streq(t->val, t->vlen, "_value") && (p->globals & TV_SCRIPT_G_AGGVALUE))
        k = N_AGGVALUE;
    else if (tv_streq(t->val, t->vlen, "token") && (p->globals & TV_SCRIPT_G_TOKEN))
        k = N_TOKEN;
    if (!k) {
        if (!p->unresolved) {
            p->unresolved = true;
            p->unres_off = t->off;
            snprintf(p->unres_msg, sizeof p->unres_msg, "cannot resolve symbol [%.*s]", (int)t->vlen, t->val);
        }
        snode *n = node(p, N_CONST, t->off);
        if (n) n->lit = tv_sv_null();
        return n;
    }
    return node(p, k, t->off);
}

/* Class.FIELD constants of the subset. */
static bool static_field(P *p, sty cls, const tok *name, tv_sv *out) {
    const char *s = name->val;
    size_t n = name->vlen;
    if (cls == TY_MATH && tv_streq(s, n, "PI")) return *out = tv_sv_double(M_PI), true;
    if (cls == TY_MATH && tv_streq(s, n, "E")) return *out = tv_sv_double(M_E), true;
    if (cls == TY_INT_B && tv_streq(s, n, "MAX_VALUE")) return *out = tv_sv_int(INT32_MAX), true;
    if (cls == TY_INT_B && tv_streq(s, n, "MIN_VALUE")) return *out = tv_sv_int(INT32_MIN), true;
    if (cls == TY_LONG_B && tv_streq(s, n, "MAX_VALUE")) return *out = tv_sv_long(INT64_MAX), true;
    if (cls == TY_LONG_B && tv_streq(s, n, "MIN_VALUE")) return *out = tv_sv_long(INT64_MIN), true;
    if (cls == TY_DOUBLE_B && tv_streq(s, n, "MAX_VALUE")) return *out = tv_sv_double(1.7976931348623157e308), true;
    if (cls == TY_DOUBLE_B && tv_streq(s, n, "MIN_VALUE")) return *out = tv_sv_double(4.9e-324), true;
    if (cls == TY_DOUBLE_B && tv_streq(s, n, "POSITIVE_INFINITY")) return *out = tv_sv_double(INFINITY), true;
    if (cls == TY_DOUBLE_B && tv_streq(s, n, "NEGATIVE_INFINITY")) return *out = tv_sv_double(-INFINITY), true;
    if (cls == TY_DOUBLE_B && tv_streq(s, n, "NaN")) return *out = tv_sv_double(NAN), true;
    (void)p;
    return false;
}

/* The functions a context imports (Painless's static imports and class
 * bindings): name, arity, id, and whether it is a class binding (its
 * first `ctor` arguments construct an instance once per script
 * instance). */
static const struct {
    const char *name;
    uint8_t nargs, ctor;
    uint8_t fn;
    unsigned globals;
} k_imports[] = {
    {"saturation", 2, 0, TV_SCRIPT_FN_SATURATION, TV_SCRIPT_G_SCOREFN},
    {"sigmoid", 3, 0, TV_SCRIPT_FN_SIGMOID, TV_SCRIPT_G_SCOREFN},
    {"randomScore", 1, 1, TV_SCRIPT_FN_RANDOM_DOC, TV_SCRIPT_G_SCOREFN},
    {"randomScore", 2, 2, TV_SCRIPT_FN_RANDOM_FIELD, TV_SCRIPT_G_SCOREFN},
    {"decayGeoLinear", 5, 4, TV_SCRIPT_FN_DECAY_GEO_LINEAR, TV_SCRIPT_G_SCOREFN},
    {"decayGeoExp", 5, 4, TV_SCRIPT_FN_DECAY_GEO_EXP, TV_SCRIPT_G_SCOREFN},
    {"decayGeoGauss", 5, 4, TV_SCRIPT_FN_DECAY_GEO_GAUSS, TV_SCRIPT_G_SCOREFN},
    {"decayNumericLinear", 5, 4, TV_SCRIPT_FN_DECAY_NUM_LINEAR, TV_SCRIPT_G_SCOREFN},
    {"decayNumericExp", 5, 4, TV_SCRIPT_FN_DECAY_NUM_EXP, TV_SCRIPT_G_SCOREFN},
    {"decayNumericGauss", 5, 4, TV_SCRIPT_FN_DECAY_NUM_GAUSS, TV_SCRIPT_G_SCOREFN},
    {"decayDateLinear", 5, 4, TV_SCRIPT_FN_DECAY_DATE_LINEAR, TV_SCRIPT_G_SCOREFN},
    {"decayDateExp", 5, 4, TV_SCRIPT_FN_DECAY_DATE_EXP, TV_SCRIPT_G_SCOREFN},
    {"decayDateGauss", 5, 4, TV_SCRIPT_FN_DECAY_DATE_GAUSS, TV_SCRIPT_G_SCOREFN},
};

/* name(args): a function the context imports, else Painless's
 * "Unknown call [name] with [n] arguments." (reported, as an unresolved
 * symbol is, after the syntax of the whole script). */
static snode *local_call(P *p, tok *t) {
    snode *n = node(p, N_HCALL, t->off);
    if (!n) return NULL;
    n->name = t->val;
    n->nlen = t->vlen;
    nvec v = {0};
    if (!args(p, &v)) return tv_vec_fini(&v), NULL;
    if (!finish_kids(p, n, &v)) return NULL;
    for (size_t i = 0; i < TV_ARRAY_LEN(k_imports); i++)
        if ((p->globals & k_imports[i].globals) && k_imports[i].nargs == n->n &&
            tv_streq(t->val, t->vlen, k_imports[i].name)) {
            n->slot = k_imports[i].fn;
            n->flag = k_imports[i].ctor;
            if (n->flag) n->st1 = p->nbinds++;
            return n;
        }
    if (!p->unresolved) {
        p->unresolved = true;
        p->unres_off = t->off;
        snprintf(p->unres_msg, sizeof p->unres_msg, "Unknown call [%.*s] with [%u] arguments.", (int)t->vlen, t->val, n->n);
    }
    return n;
}

static snode *primary(P *p) {
    tok *t = cur(p);
    if (t->kind == T_INTLIT || t->kind == T_DECLIT) {
        p->i++;
        return number(p, t, false);
    }
    if (t->kind == T_STR) {
        p->i++;
        snode *n = node(p, N_CONST, t->off);
        if (n && !tv_sv_string(p->a, t->val, t->vlen, &n->lit)) return oom(p);
        return n;
    }
    if (is_p(t, "(")) {
        sty ty = tok_type(peek(p, 1));
        if (ty != TY_NONE && is_p(peek(p, 2), ")")) {
            if (ty >= TY_MATH) return unexpected(p), NULL;
            p->i += 3;
            snode *n = node(p, N_CAST, t->off);
            if (!n) return NULL;
            n->type = (uint8_t)ty;
            n->a = unary(p);
            return n->a ? n : NULL;
        }
        if (foreign(peek(p, 1)) && is_p(peek(p, 2), ")")) return unsupported(p, peek(p, 1)->off, "this class"), NULL;
        p->i++;
        snode *e = expr(p);
        if (!e || !expect(p, ")")) return NULL;
        return e;
    }
    if (is_p(t, "[")) {
        p->i++;
        if (accept(p, "]")) return node(p, N_LISTINIT, t->off);
        if (is_p(cur(p), ":") && is_p(peek(p, 1), "]")) {
            p->i += 2;
            return node(p, N_MAPINIT, t->off);
        }
        nvec v = {0};
        bool map = false;
        for (int k = 0;; k++) {
            snode *e = expr(p);
            if (!e) return tv_vec_fini(&v), NULL;
            if (tv_vec_push(&v, e)) return tv_vec_fini(&v), oom(p);
            if (k == 0 && is_p(cur(p), ":")) map = true;
            if (map) {
                if (!expect(p, ":")) return tv_vec_fini(&v), NULL;
                snode *val = expr(p);
                if (!val) return tv_vec_fini(&v), NULL;
                if (tv_vec_push(&v, val)) return tv_vec_fini(&v), oom(p);
            }
            if (accept(p, "]")) break;
            if (!expect(p, ",")) return tv_vec_fini(&v), NULL;
        }
        snode *n = node(p, map ? N_MAPINIT : N_LISTINIT, t->off);
        if (!n) return tv_vec_fini(&v), NULL;
        return finish_kids(p, n, &v) ? n : NULL;
    }
    if (t->kind != T_ID) return unexpected(p), NULL;
    if (is_kw(t, "true") || is_kw(t, "false") || is_kw(t, "null")) {
        p->i++;
        snode *n = node(p, N_CONST, t->off);
        if (n) n->lit = t->val[0] == 'n' ? tv_sv_null() : tv_sv_bool(t->val[0] == 't');
        return n;
    }
    if (is_kw(t, "new")) {
        p->i++;
        tok *c = cur(p);
        sty ty = tok_type(c);
        if (ty != TY_NONE && is_p(peek(p, 1), "[")) return unsupported(p, c->off, "arrays"), NULL;
        if (ty != TY_ARRAYLIST && ty != TY_HASHMAP && ty != TY_LINKEDHASHMAP && ty != TY_STRING) {
            if (ty != TY_NONE || foreign(c)) return unsupported(p, c->off, "this class"), NULL;
            fail(p, c->off, TROVE_EARG, "cannot resolve type [%.*s]", (int)c->vlen, c->val);
            return NULL;
        }
        p->i++;
        snode *n = node(p, N_NEW, t->off);
        if (!n) return NULL;
        n->type = (uint8_t)ty;
        nvec v = {0};
        if (!args(p, &v)) return tv_vec_fini(&v), NULL;
        return finish_kids(p, n, &v) ? n : NULL;
    }
    if (is_kw(t, "this") || is_kw(t, "try") || is_kw(t, "throw"))
        return unsupported(p, t->off, is_kw(t, "this") ? "[this]" : "exceptions"), NULL;
    sty ty = tok_type(t);
    if (ty == TY_MOVFN && !(p->globals & TV_SCRIPT_G_VALUES)) /* whitelisted in moving_fn scripts only */
        return fail(p, t->off, TROVE_EARG, "cannot resolve symbol [%.*s]", (int)t->vlen, t->val), NULL;
    if (ty != TY_NONE) {
        p->i++;
        if (!is_p(cur(p), ".")) return unexpected(p), NULL;
        p->i++;
        tok *name = cur(p);
        if (name->kind != T_ID) return unexpected(p), NULL;
        p->i++;
        if (is_p(cur(p), "(")) {
            snode *n = node(p, N_SCALL, name->off);
            if (!n) return NULL;
            n->type = (uint8_t)ty;
            n->name = name->val;
            n->nlen = name->vlen;
            nvec v = {0};
            if (!args(p, &v)) return tv_vec_fini(&v), NULL;
            return finish_kids(p, n, &v) ? n : NULL;
        }
        snode *n = node(p, N_CONST, name->off);
        if (!n) return NULL;
        if (!static_field(p, ty, name, &n->lit)) {
            fail(p, name->off, TROVE_EARG, "static field [%s, %.*s] not found", tv_script_type_name(ty),
                 (int)name->vlen, name->val);
            return NULL;
        }
        return n;
    }
    if (foreign(t)) return unsupported(p, t->off, "this class"), NULL;
    if (is_reserved(t)) return unexpected(p), NULL;
    p->i++;
    if (is_p(cur(p), "(")) return local_call(p, t);
    return variable(p, t);
}

static snode *postfix(P *p) {
    snode *e = primary(p);
    while (e) {
        tok *t = cur(p);
        if (is_p(t, ".") || is_p(t, "?.")) {
            bool ns = t->p[0] == '?';
            p->i++;
            tok *name = cur(p);
            if (name->kind != T_ID && name->kind != T_INTLIT) return unexpected(p), NULL;
            p->i++;
            if (is_p(cur(p), "(")) {
                snode *n = node(p, N_CALL, t->off); /* at the dot, as Painless locates it */
                if (!n) return NULL;
                n->st0 = e->st0;
                n->a = e;
                n->flag = ns;
                n->name = name->val;
                n->nlen = name->vlen;
                nvec v = {0};
                if (!args(p, &v)) return tv_vec_fini(&v), NULL;
                if (!finish_kids(p, n, &v)) return NULL;
                e = n;
            } else {
                snode *n = node(p, N_FIELD, t->off);
                if (!n) return NULL;
                n->st0 = e->st0;
                n->a = e;
                n->flag = ns;
                n->name = name->val;
                n->nlen = name->vlen;
                e = n;
            }
        } else if (is_p(t, "[")) {
            p->i++;
            snode *n = node(p, N_INDEX, t->off);
            if (!n) return NULL;
            n->st0 = e->st0;
            n->a = e;
            n->b = expr(p);
            if (!n->b || !expect(p, "]")) return NULL;
            e = n;
        } else if (is_p(t, "++") || is_p(t, "--")) {
            if (e->k != N_LOCAL && e->k != N_FIELD && e->k != N_INDEX) return unexpected(p), NULL;
            p->i++;
            snode *n = node(p, N_INCDEC, t->off);
            if (!n) return NULL;
            n->st0 = e->st0;
            n->op = t->p[0] == '+' ? OP_ADD : OP_SUB;
            n->a = e;
            e = n;
        } else {
            break;
        }
    }
    return e;
}

static snode *unary(P *p) {
    if (!enter(p)) return NULL;
    tok *t = cur(p);
    snode *r = NULL;
    if ((is_p(t, "-")) && (peek(p, 1)->kind == T_INTLIT || peek(p, 1)->kind == T_DECLIT) &&
        !is_p(peek(p, 2), ".") && !is_p(peek(p, 2), "[")) {
        p->i += 2;
        r = number(p, &p->t[p->i - 1], true);
    } else if (is_p(t, "!") || is_p(t, "~") || is_p(t, "-") || is_p(t, "+")) {
        p->i++;
        r = node(p, N_UNARY, t->off);
        if (r) {
            r->op = t->p[0] == '!' ? OP_NOT : t->p[0] == '~' ? OP_BNOT : t->p[0] == '-' ? OP_NEG : OP_POS;
            r->a = unary(p);
            if (!r->a) r = NULL;
        }
    } else if (is_p(t, "++") || is_p(t, "--")) {
        p->i++;
        r = node(p, N_INCDEC, t->off);
        if (r) {
            r->op = t->p[0] == '+' ? OP_ADD : OP_SUB;
            r->flag = 1;
            r->a = unary(p);
            if (!r->a) r = NULL;
            else if (r->a->k != N_LOCAL && r->a->k != N_FIELD && r->a->k != N_INDEX) {
                fail(p, t->off, TROVE_EARG, "invalid assignment: cannot assign a value to this expression");
                r = NULL;
            }
        }
    } else {
        r = postfix(p);
    }
    p->depth--;
    return r;
}

typedef struct binop {
    const char *tok;
    uint8_t op;
} binop;

static const binop lv_mul[] = {{"*", OP_MUL}, {"/", OP_DIV}, {"%", OP_REM}, {NULL, 0}};
static const binop lv_add[] = {{"+", OP_ADD}, {"-", OP_SUB}, {NULL, 0}};
static const binop lv_shift[] = {{"<<", OP_SHL}, {">>", OP_SHR}, {">>>", OP_USHR}, {NULL, 0}};
static const binop lv_rel[] = {{"<", OP_LT}, {"<=", OP_LE}, {">", OP_GT}, {">=", OP_GE}, {NULL, 0}};
static const binop lv_eq[] = {{"==", OP_EQ}, {"!=", OP_NE}, {"===", OP_EQR}, {"!==", OP_NER}, {NULL, 0}};
static const binop lv_band[] = {{"&", OP_BAND}, {NULL, 0}};
static const binop lv_bxor[] = {{"^", OP_BXOR}, {NULL, 0}};
static const binop lv_bor[] = {{"|", OP_BOR}, {NULL, 0}};
static const binop *const levels[] = {lv_bor, lv_bxor, lv_band, lv_eq, lv_rel, lv_shift, lv_add, lv_mul};

static snode *binary(P *p, int level) {
    if (level >= (int)TV_ARRAY_LEN(levels)) return unary(p);
    snode *e = binary(p, level + 1);
    while (e) {
        tok *t = cur(p);
        if (levels[level] == lv_rel && is_kw(t, "instanceof")) {
            p->i++;
            tok *ty = cur(p);
            sty st = tok_type(ty);
            if (st == TY_NONE || st >= TY_MATH) {
                if (foreign(ty)) {
                    unsupported(p, ty->off, "this class");
                    e = NULL;
                    break;
                }
                unexpected(p);
                e = NULL;
                break;
            }
            p->i++;
            snode *n = node(p, N_INSTANCEOF, e->st0);
            if (!n) return NULL;
            n->a = e;
            n->type = (uint8_t)st;
            e = n;
            continue;
        }
        if (t->kind != T_PUNCT) break;
        const binop *b = NULL;
        for (const binop *x = levels[level]; x->tok; x++)
            if (strcmp(t->p, x->tok) == 0) b = x;
        if (!b) break;
        p->i++;
        snode *n = node(p, N_BINARY, e->st0); /* Painless locates a binary expression at its start */
        if (!n) return NULL;
        n->op = b->op;
        n->a = e;
        n->b = binary(p, level + 1);
        e = n->b ? n : NULL;
    }
    return e;
}

static snode *logic_and(P *p) {
    snode *e = binary(p, 0);
    while (e && is_p(cur(p), "&&")) {
        snode *n = node(p, N_AND, e->st0);
        if (!n) return NULL;
        p->i++;
        n->a = e;
        n->b = binary(p, 0);
        e = n->b ? n : NULL;
    }
    return e;
}

static snode *logic_or(P *p) {
    snode *e = logic_and(p);
    while (e && is_p(cur(p), "||")) {
        snode *n = node(p, N_OR, e->st0);
        if (!n) return NULL;
        p->i++;
        n->a = e;
        n->b = logic_and(p);
        e = n->b ? n : NULL;
    }
    return e;
}

static snode *conditional(P *p) {
    snode *e = logic_or(p);
    if (e && is_p(cur(p), "?")) {
        snode *n = node(p, N_COND, e->st0);
        if (!n) return NULL;
        p->i++;
        n->a = e;
        n->b = expr(p);
        if (!n->b || !expect(p, ":")) return NULL;
        if (!enter(p)) return NULL;
        n->c = conditional(p);
        p->depth--;
        e = n->c ? n : NULL;
    } else if (e && is_p(cur(p), "?:")) {
        snode *n = node(p, N_ELVIS, e->st0);
        if (!n) return NULL;
        p->i++;
        n->a = e;
        n->b = conditional(p);
        e = n->b ? n : NULL;
    }
    return e;
}

static const binop assigns[] = {{"=", OP_NONE},  {"+=", OP_ADD},  {"-=", OP_SUB},   {"*=", OP_MUL},
                                {"/=", OP_DIV},  {"%=", OP_REM},  {"&=", OP_BAND},  {"|=", OP_BOR},
                                {"^=", OP_BXOR}, {"<<=", OP_SHL}, {">>=", OP_SHR},  {">>>=", OP_USHR},
                                {NULL, 0}};

static snode *expr(P *p) {
    if (!enter(p)) return NULL;
    snode *e = conditional(p);
    tok *t = cur(p);
    if (e && t->kind == T_PUNCT) {
        for (const binop *x = assigns; x->tok; x++) {
            if (strcmp(t->p, x->tok) != 0) continue;
            if (e->k != N_LOCAL && e->k != N_FIELD && e->k != N_INDEX) {
                fail(p, t->off, TROVE_EARG, "invalid assignment: cannot assign a value to this expression");
                e = NULL;
                break;
            }
            p->i++;
            snode *n = node(p, N_ASSIGN, e->st0);
            if (!n) return NULL;
            n->op = x->op;
            n->a = e;
            n->b = expr(p);
            e = n->b ? n : NULL;
            break;
        }
    }
    p->depth--;
    return e;
}

/* ---- statements ---- */

/* `;`, which the last statement of a block or of the script may omit */
static bool end_stmt(P *p) {
    if (accept(p, ";")) return true;
    if (cur(p)->kind == T_EOF || is_p(cur(p), "}")) return true;
    return unexpected(p);
}

static bool note_stmt(P *p, uint32_t off) {
    if (tv_vec_push(&p->stmts, off)) return oom(p), false;
    return true;
}

static snode *declaration(P *p, sty ty, bool need_end) {
    tok *tt = cur(p);
    p->i++; /* the type */
    nvec v = {0};
    for (;;) {
        tok *name = cur(p);
        if (name->kind != T_ID || is_reserved(name)) return tv_vec_fini(&v), unexpected(p), NULL;
        p->i++;
        if (is_p(cur(p), "(")) return tv_vec_fini(&v), unsupported(p, name->off, "functions"), NULL;
        snode *d = node(p, N_DECL, name->off);
        if (!d) return tv_vec_fini(&v), NULL;
        d->type = (uint8_t)ty;
        if (accept(p, "=")) {
            d->a = expr(p);
            if (!d->a) return tv_vec_fini(&v), NULL;
        }
        d->slot = declare(p, name, ty); /* after the initializer: `int x = x` does not resolve */
        if (d->slot < 0) return tv_vec_fini(&v), NULL;
        if (tv_vec_push(&v, d)) return tv_vec_fini(&v), oom(p);
        if (!accept(p, ",")) break;
    }
    if (need_end && !end_stmt(p)) return tv_vec_fini(&v), NULL;
    if (v.len == 1) {
        snode *d = v.items[0];
        tv_vec_fini(&v);
        return d;
    }
    snode *b = node(p, N_BLOCK, tt->off);
    if (!b) return tv_vec_fini(&v), NULL;
    b->flag = 1; /* no scope of its own */
    return finish_kids(p, b, &v) ? b : NULL;
}

static bool effective(const snode *e) {
    return e->k == N_ASSIGN || e->k == N_INCDEC || e->k == N_CALL || e->k == N_SCALL || e->k == N_HCALL || e->k == N_NEW;
}

static snode *block(P *p) {
    tok *t = cur(p);
    if (!expect(p, "{")) return NULL;
    size_t mark = scope_mark(p);
    nvec v = {0};
    while (!is_p(cur(p), "}")) {
        if (cur(p)->kind == T_EOF) return tv_vec_fini(&v), unexpected(p), NULL;
        snode *s = statement(p, false);
        if (!s) return tv_vec_fini(&v), NULL;
        if (tv_vec_push(&v, s)) return tv_vec_fini(&v), oom(p);
    }
    p->i++;
    scope_pop(p, mark);
    snode *b = node(p, N_BLOCK, t->off);
    if (!b) return tv_vec_fini(&v), NULL;
    return finish_kids(p, b, &v) ? b : NULL;
}

/* a loop's or a branch's body: its own scope */
static snode *body(P *p) {
    size_t mark = scope_mark(p);
    snode *s = statement(p, false);
    scope_pop(p, mark);
    return s;
}

static snode *statement(P *p, bool last_allowed) {
    if (!enter(p)) return NULL;
    tok *t = cur(p);
    snode *r = NULL;
    if (!note_stmt(p, t->off)) return NULL;
    if (is_p(t, "{")) {
        r = block(p);
    } else if (is_p(t, ";")) {
        p->i++;
        r = node(p, N_BLOCK, t->off);
    } else if (is_kw(t, "if")) {
        p->i++;
        r = node(p, N_IF, t->off);
        if (!r || !expect(p, "(") || !(r->a = expr(p)) || !expect(p, ")") || !(r->b = body(p))) goto out_null;
        if (is_kw(cur(p), "else")) {
            p->i++;
            if (!(r->c = body(p))) goto out_null;
        }
    } else if (is_kw(t, "while")) {
        p->i++;
        r = node(p, N_WHILE, t->off);
        if (!r || !expect(p, "(") || !(r->a = expr(p)) || !expect(p, ")")) goto out_null;
        p->loops++;
        r->b = body(p);
        p->loops--;
        if (!r->b) goto out_null;
    } else if (is_kw(t, "do")) {
        p->i++;
        r = node(p, N_DO, t->off);
        if (!r) goto out_null;
        p->loops++;
        r->b = body(p);
        p->loops--;
        if (!r->b || !is_kw(cur(p), "while")) {
            if (r->b) unexpected(p);
            goto out_null;
        }
        p->i++;
        if (!expect(p, "(") || !(r->a = expr(p)) || !expect(p, ")") || !end_stmt(p)) goto out_null;
    } else if (is_kw(t, "for")) {
        p->i++;
        if (!expect(p, "(")) goto out_null;
        size_t mark = scope_mark(p);
        tok *a0 = cur(p), *a1 = peek(p, 1), *a2 = peek(p, 2);
        sty ty = tok_type(a0);
        if ((ty != TY_NONE && a1->kind == T_ID && is_p(a2, ":")) || (a0->kind == T_ID && is_kw(a1, "in"))) {
            /* for (T x : e) / for (x in e) */
            tok *name = ty != TY_NONE && !is_kw(a1, "in") ? a1 : a0;
            if (is_reserved(name) && name == a0) {
                unexpected(p);
                goto out_null;
            }
            p->i += name == a1 ? 3 : 2;
            r = node(p, N_FOREACH, t->off);
            if (!r || !(r->a = expr(p)) || !expect(p, ")")) goto out_null;
            r->type = (uint8_t)(name == a1 ? ty : TY_DEF);
            r->slot = declare(p, name, (sty)r->type);
            if (r->slot < 0) goto out_null;
        } else {
            r = node(p, N_FOR, t->off);
            if (!r) goto out_null;
            if (!is_p(cur(p), ";")) {
                if (ty != TY_NONE && ty < TY_MATH && a1->kind == T_ID)
                    r->a = declaration(p, ty, false);
                else {
                    snode *e = expr(p);
                    if (e) {
                        r->a = node(p, N_EXPR, e->off);
                        if (r->a) r->a->a = e;
                    }
                }
                if (!r->a) goto out_null;
            }
            if (!expect(p, ";")) goto out_null;
            if (!is_p(cur(p), ";") && !(r->b = expr(p))) goto out_null;
            if (!expect(p, ";")) goto out_null;
            if (!is_p(cur(p), ")")) {
                nvec v = {0};
                for (;;) {
                    snode *e = expr(p);
                    if (!e) {
                        tv_vec_fini(&v);
                        goto out_null;
                    }
                    if (tv_vec_push(&v, e)) {
                        tv_vec_fini(&v);
                        oom(p);
                        goto out_null;
                    }
                    if (!accept(p, ",")) break;
                }
                r->c = node(p, N_BLOCK, cur(p)->off);
                if (!r->c) {
                    tv_vec_fini(&v);
                    goto out_null;
                }
                if (!finish_kids(p, r->c, &v)) goto out_null;
            }
            if (!expect(p, ")")) goto out_null;
        }
        p->loops++;
        r->d = body(p);
        p->loops--;
        scope_pop(p, mark);
        if (!r->d) goto out_null;
    } else if (is_kw(t, "break") || is_kw(t, "continue")) {
        p->i++;
        if (!p->loops) {
            fail(p, t->off, TROVE_EARG, "invalid %s statement: not inside a loop",
                 t->val[0] == 'b' ? "break" : "continue");
            goto out_null;
        }
        r = node(p, t->val[0] == 'b' ? N_BREAK : N_CONTINUE, t->off);
        if (!r || !end_stmt(p)) goto out_null;
    } else if (is_kw(t, "return")) {
        p->i++;
        r = node(p, N_RETURN, t->off);
        if (!r) goto out_null;
        if (!is_p(cur(p), ";") && !is_p(cur(p), "}") && cur(p)->kind != T_EOF && !(r->a = expr(p))) goto out_null;
        if (!end_stmt(p)) goto out_null;
    } else if (is_kw(t, "try") || is_kw(t, "throw")) {
        unsupported(p, t->off, "exceptions");
        goto out_null;
    } else if (tok_type(t) != TY_NONE && tok_type(t) < TY_MATH && is_p(peek(p, 1), "[")) {
        unsupported(p, t->off, "arrays");
        goto out_null;
    } else if (tok_type(t) != TY_NONE && tok_type(t) < TY_MATH && peek(p, 1)->kind == T_ID) {
        r = declaration(p, tok_type(t), true);
    } else if (foreign(t) && peek(p, 1)->kind == T_ID) {
        unsupported(p, t->off, "this class");
        goto out_null;
    } else {
        snode *e = expr(p);
        if (!e) goto out_null;
        bool last = last_allowed && (is_p(cur(p), ";") ? peek(p, 1)->kind == T_EOF : cur(p)->kind == T_EOF);
        if (!end_stmt(p)) goto out_null;
        if (!effective(e) && !last) {
            fail(p, e->off, TROVE_EARG, "not a statement: result not used");
            goto out_null;
        }
        /* the last statement returns its value (SExpression: a call or an
         * assignment too, a void method's value being null) unless the
         * context returns void (those with ctx: update, by-query, reindex,
         * ingest) */
        bool rtn = last && (!effective(e) || !(p->globals & TV_SCRIPT_G_CTX));
        r = node(p, rtn ? N_RETURN : N_EXPR, t->off);
        if (r) r->a = e;
    }
    p->depth--;
    return r;
out_null:
    p->depth--;
    return NULL;
}

/* ---------------------------------------------------------- errors */

static void compile_error(tv_script_error *err, const char *src, size_t len, uint32_t off, tv_status cause,
                          const char *msg) {
    memset(err, 0, sizeof *err);
    err->code = TROVE_ESCRIPT;
    err->compile = true;
    err->cause = cause;
    snprintf(err->cause_reason, sizeof err->cause_reason, "%s", msg);
    if (off > len) off = (uint32_t)len;
    uint32_t start = off > 25 ? off - 25 : 0;
    uint32_t end = off + 25 < len ? off + 25 : (uint32_t)len;
    snprintf(err->stack[0], sizeof err->stack[0], "%s%.*s%s", start > 0 ? "... " : "", (int)(end - start),
             src + start, end < len ? " ..." : "");
    size_t k = 0;
    if (start > 0) k = (size_t)snprintf(err->stack[1], sizeof err->stack[1], "    ");
    for (uint32_t i = start; i < off && k + 12 < sizeof err->stack[1]; i++) err->stack[1][k++] = ' ';
    snprintf(err->stack[1] + k, sizeof err->stack[1] - k, "^---- HERE");
    err->has_pos = true;
    err->offset = off;
    err->start = start;
    err->end = end;
}

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

tv_script *tv_script_compile(const char *src, size_t len, unsigned globals, tv_script_error *err) {
    memset(err, 0, sizeof *err);
    if (len > TV_SCRIPT_MAX_SIZE) {
        err->code = TROVE_EARG;
        snprintf(err->cause_reason, sizeof err->cause_reason,
                 "exceeded max allowed inline script size in bytes [%d] with size [%zu] for script [%.64s...]",
                 TV_SCRIPT_MAX_SIZE, len, src);
        return NULL;
    }
    tv_script *s = tv_calloc(1, sizeof *s);
    if (!s) {
        err->code = TROVE_ENOMEM;
        return NULL;
    }
    atomic_init(&s->rc, 1);
    tv_arena_init(&s->arena);
    s->globals = globals;
    s->src = tv_arena_strndup(&s->arena, src, len);
    s->len = len;
    P p;
    memset(&p, 0, sizeof p);
    p.s = s;
    p.a = &s->arena;
    p.src = s->src;
    p.len = len;
    p.globals = globals;
    if (!s->src) goto nomem;
    uint32_t eoff = 0;
    char msg[256];
    if (!tv_script_lex(&s->arena, s->src, len, &p.t, &p.nt, &eoff, msg, sizeof msg)) {
        if (!msg[0]) goto nomem;
        compile_error(err, s->src, len, eoff, TROVE_EARG, msg);
        tv_script_release(s);
        return NULL;
    }
    for (size_t i = 0; i < p.nt; i++) {
        tok *t = &p.t[i];
        if (is_p(t, "->")) unsupported(&p, t->off, "lambdas");
        else if (is_p(t, "::")) unsupported(&p, t->off, "method references");
        else if (is_p(t, "=~") || is_p(t, "==~")) unsupported(&p, t->off, "regexes");
        if (p.failed) break;
    }
    nvec v = {0};
    while (!p.failed && cur(&p)->kind != T_EOF) {
        snode *st = statement(&p, true);
        if (!st) break;
        if (tv_vec_push(&v, st)) oom(&p);
    }
    if (!p.failed) {
        s->root = node(&p, N_BLOCK, 0);
        if (s->root) finish_kids(&p, s->root, &v);
    }
    tv_vec_fini(&v);
    if (p.oom) goto nomem;
    if (!p.failed && p.unresolved) fail(&p, p.unres_off, TROVE_EARG, "%s", p.unres_msg);
    if (p.failed) {
        compile_error(err, s->src, len, p.err_off, p.cause, p.msg);
        goto fail;
    }
    s->nslots = (uint32_t)p.slot_types.len;
    s->nbinds = p.nbinds;
    s->slot_type = tv_arena_alloc(&s->arena, s->nslots + 1);
    if (!s->slot_type) goto nomem;
    if (s->nslots) memcpy(s->slot_type, p.slot_types.items, s->nslots);
    /* statement starts, sorted and unique: a runtime error's excerpt runs
     * from its statement to the next one */
    if (p.stmts.len) qsort(p.stmts.items, p.stmts.len, sizeof *p.stmts.items, cmp_u32);
    size_t u = 0;
    for (size_t i = 0; i < p.stmts.len; i++)
        if (!u || p.stmts.items[u - 1] != p.stmts.items[i]) p.stmts.items[u++] = p.stmts.items[i];
    s->stmt = tv_arena_alloc(&s->arena, (u + 1) * sizeof *s->stmt);
    if (!s->stmt) goto nomem;
    if (u) memcpy(s->stmt, p.stmts.items, u * sizeof *s->stmt);
    s->nstmt = (uint32_t)u;
    tv_vec_fini(&p.vars);
    tv_vec_fini(&p.slot_types);
    tv_vec_fini(&p.stmts);
    return s;
nomem:
    memset(err, 0, sizeof *err);
    err->code = TROVE_ENOMEM;
fail:
    tv_vec_fini(&p.vars);
    tv_vec_fini(&p.slot_types);
    tv_vec_fini(&p.stmts);
    tv_script_release(s);
    return NULL;
}

void tv_script_retain(tv_script *s) { atomic_fetch_add(&s->rc, 1); }

void tv_script_release(tv_script *s) {
    if (!s) return;
    if (atomic_fetch_sub(&s->rc, 1) != 1) return;
    tv_arena_fini(&s->arena);
    tv_free(s);
}

const char *tv_script_source(const tv_script *s, size_t *len) {
    *len = s->len;
    return s->src;
}

/* ------------------------------------------------------------ the cache */

#define CACHE_SIZE 100
static pthread_mutex_t cache_mu = PTHREAD_MUTEX_INITIALIZER;
static tv_script *cache[CACHE_SIZE]; /* most recently used first */
static size_t ncache;

static atomic_llong n_compilations, n_evictions;

void tv_script_cache_stats(int64_t *compilations, int64_t *evictions) {
    *compilations = (int64_t)atomic_load(&n_compilations);
    *evictions = (int64_t)atomic_load(&n_evictions);
}

tv_script *tv_script_get(const char *src, size_t len, unsigned globals, tv_script_error *err) {
    pthread_mutex_lock(&cache_mu);
    for (size_t i = 0; i < ncache; i++) {
        tv_script *s = cache[i];
        if (s->globals == globals && s->len == len && memcmp(s->src, src, len) == 0) {
            memmove(cache + 1, cache, i * sizeof *cache);
            cache[0] = s;
            tv_script_retain(s);
            pthread_mutex_unlock(&cache_mu);
            memset(err, 0, sizeof *err);
            return s;
        }
    }
    pthread_mutex_unlock(&cache_mu);
    tv_script *s = tv_script_compile(src, len, globals, err);
    if (!s) return NULL;
    atomic_fetch_add(&n_compilations, 1);
    pthread_mutex_lock(&cache_mu);
    if (ncache == CACHE_SIZE) {
        tv_script_release(cache[--ncache]);
        atomic_fetch_add(&n_evictions, 1);
    }
    memmove(cache + 1, cache, ncache * sizeof *cache);
    cache[0] = s;
    ncache++;
    tv_script_retain(s);
    pthread_mutex_unlock(&cache_mu);
    return s;
}
