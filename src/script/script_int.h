/*
 * script_int.h — what the files of src/script share: tokens, the AST, the
 * static types, the compiled script and the map's layout.
 */
#ifndef TROVE_SCRIPT_INT_H
#define TROVE_SCRIPT_INT_H

#include <pthread.h>

#include "script/script.h"

/* ---- lex.c ---- */

typedef enum tok_kind {
    T_EOF = 0,
    T_ID,
    T_INTLIT,   /* integer literal text (suffix l/L kept in the text) */
    T_DECLIT,   /* decimal literal text */
    T_STR,      /* string literal: val/vlen unescaped */
    T_PUNCT,    /* punctuation: text in p (up to 4 chars) */
} tok_kind;

typedef struct tok {
    uint8_t kind;
    char p[5];       /* T_PUNCT: the operator, NUL-terminated */
    uint32_t off, len; /* source range */
    const char *val; /* T_ID, T_STR: text (T_STR unescaped, in the script arena) */
    uint32_t vlen;
} tok;

/* Tokenizes src into *toks (arena). False with the error offset and
 * message on a lexical error (or OOM: msg empty). */
bool tv_script_lex(tv_arena *a, const char *src, size_t len, tok **toks, size_t *ntoks, uint32_t *err_off,
                   char *msg, size_t msgcap);

/* ---- static types (declarations, casts, instanceof, new) ---- */

typedef enum sty {
    TY_NONE = 0,
    TY_DEF,
    TY_OBJECT,
    TY_BOOLEAN,
    TY_BYTE,
    TY_SHORT,
    TY_CHAR,
    TY_INT,
    TY_LONG,
    TY_FLOAT,
    TY_DOUBLE,
    TY_BOOLEAN_B, /* java.lang.Boolean ... (nullable boxes) */
    TY_CHAR_B,
    TY_INT_B,
    TY_LONG_B,
    TY_FLOAT_B,
    TY_DOUBLE_B,
    TY_NUMBER,
    TY_STRING,
    TY_LIST,
    TY_ARRAYLIST,
    TY_MAP,
    TY_HASHMAP,
    TY_LINKEDHASHMAP,
    TY_COLLECTION,
    TY_ENTRY,
    /* classes only used statically */
    TY_MATH,
    TY_COLLECTIONS,
    TY_OBJECTS,
    TY_MOVFN, /* MovingFunctions: the moving-function context only */
    TY_COUNT_
} sty;

/* The type a name denotes (TY_NONE: not a type). */
sty tv_script_type_named(const char *s, size_t n);
const char *tv_script_type_name(sty t); /* Painless's name: "int", "String", "ArrayList" */

/* ---- the AST ---- */

typedef enum nkind {
    /* expressions */
    N_CONST,     /* lit */
    N_LOCAL,     /* slot */
    N_PARAMS,
    N_CTX,
    N_SCORE,
    N_VALUES,    /* the moving-function context's window */
    N_AGGVALUE,  /* _value of an aggregation's value script */
    N_TOKEN,     /* token of an analysis predicate script */
    N_DOC,
    N_FIELD,     /* a.name (flag: ?.) */
    N_INDEX,     /* a[b] */
    N_CALL,      /* a.name(kids) (flag: ?.) */
    N_SCALL,     /* type.name(kids) */
    N_HCALL,     /* name(kids): an imported function (slot: tv_script_fn;
                    flag: class-binding constructor arguments, st1 its site) */
    N_NEW,       /* new type(kids) */
    N_LISTINIT,  /* [kids] */
    N_MAPINIT,   /* [k:v,...]: kids alternate */
    N_UNARY,     /* op a */
    N_BINARY,    /* a op b */
    N_AND,
    N_OR,
    N_COND,      /* a ? b : c */
    N_ELVIS,     /* a ?: b */
    N_ASSIGN,    /* a (op)= b; op 0 plain */
    N_INCDEC,    /* op '+'/'-', flag 1 prefix */
    N_CAST,      /* (type) a */
    N_INSTANCEOF,/* a instanceof type */
    /* statements */
    N_BLOCK,     /* kids */
    N_EXPR,      /* a */
    N_DECL,      /* type slot = a (a may be NULL) */
    N_IF,        /* a cond, b then, c else */
    N_WHILE,     /* a cond, b body */
    N_DO,        /* b body, a cond */
    N_FOR,       /* a init (stmt), b cond, c update (block of exprs), d body */
    N_FOREACH,   /* slot, type, a iterable, d body */
    N_BREAK,
    N_CONTINUE,
    N_RETURN,    /* a may be NULL */
} nkind;

/* operator codes of N_UNARY / N_BINARY / N_ASSIGN */
enum {
    OP_NONE = 0,
    OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_REM,
    OP_SHL, OP_SHR, OP_USHR,
    OP_BAND, OP_BOR, OP_BXOR,
    OP_EQ, OP_NE, OP_EQR, OP_NER, /* == != === !== */
    OP_LT, OP_LE, OP_GT, OP_GE,
    OP_NOT, OP_BNOT, OP_NEG, OP_POS,
};

typedef struct snode snode;
struct snode {
    uint8_t k;    /* nkind */
    uint8_t op;
    uint8_t flag;
    uint8_t type; /* sty: N_DECL, N_CAST, N_INSTANCEOF, N_NEW, N_SCALL, N_FOREACH */
    uint32_t off; /* where an error points */
    uint32_t st0, st1; /* st0: where the expression starts (st1 unused) */
    int32_t slot;
    const char *name;
    uint32_t nlen;
    snode *a, *b, *c, *d;
    snode **kids;
    uint32_t n;
    tv_sv lit;
};

struct tv_script {
    atomic_uint rc;
    tv_arena arena; /* the tree, constants and the source copy */
    char *src;
    size_t len;
    unsigned globals;
    snode *root;
    uint32_t nslots;
    uint32_t nbinds;    /* class-binding call sites (N_HCALL with flag) */
    uint8_t *slot_type; /* sty of each slot */
    uint32_t *stmt;     /* statement start offsets, sorted */
    uint32_t nstmt;
};

/* ---- value.c internals ---- */

typedef struct sv_mentry {
    tv_sv key, val;
    uint32_t hash;
    bool dead;
} sv_mentry;

struct tv_sv_map {
    sv_mentry *e;
    uint32_t len, cap; /* entries including dead ones */
    uint32_t live;
    int32_t *idx;      /* open addressing over e (-1 empty), or NULL while small */
    uint32_t idx_cap;
    bool ordered;      /* LinkedHashMap: insertion order; else HashMap order */
};

/* Java hashCode of a key (String.hashCode for strings). */
uint32_t tv_sv_hash(const tv_sv *v);
const tv_sv *tv_sv_map_get(const tv_sv_map *m, const tv_sv *key);
bool tv_sv_map_put(tv_arena *a, tv_sv_map *m, const tv_sv *key, tv_sv v, tv_sv *old, bool *had);
bool tv_sv_map_remove(tv_sv_map *m, const tv_sv *key, tv_sv *old);
void tv_sv_map_clear(tv_sv_map *m);
/* Live entry positions in iteration order (arena array of *n). */
uint32_t *tv_sv_map_order(tv_arena *a, const tv_sv_map *m, uint32_t *n);
/* The number of UTF-16 units of a string. */
uint32_t tv_sv_str_u16len(const tv_sv_str *s);
/* Byte offset of UTF-16 index i (i <= length). */
uint32_t tv_sv_str_byte_at(const tv_sv_str *s, uint32_t i);
/* A string from a buffer's bytes. */
bool tv_sv_string_buf(tv_arena *a, const tv_buf *b, tv_sv *out);
bool tv_sv_list_reserve(tv_arena *a, tv_sv_list *l, uint32_t n);
/* The calendar fields of epoch seconds at UTC (java.time's ISO chronology). */
typedef struct tv_sv_civil_t {
    int64_t year;
    int month, day, hour, minute, second;
    int doy; /* day of year, 1.. */
    int dow; /* 1 Monday .. 7 Sunday */
} tv_sv_civil_t;
void tv_sv_civil(int64_t sec, tv_sv_civil_t *c);
/* A date as OpenSearch prints it (strict_date_time; ISO_INSTANT for an
 * Instant), NUL-terminated in buf; returns its length. */
size_t tv_sv_date_format(const tv_sv_obj *o, char *buf, size_t cap);
extern const char *const tv_sv_dow_names[8]; /* [1] "MONDAY" .. [7] "SUNDAY" */

#endif /* TROVE_SCRIPT_INT_H */
