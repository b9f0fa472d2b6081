/*
 * tok_kuromoji.c — the `kuromoji_tokenizer` (OpenSearch's analysis-kuromoji,
 * Lucene's JapaneseTokenizer), over the IPADIC dictionary (mecab-ipadic
 * 2.7.0-20070801, the one kuromoji is built from) as MeCab compiled it.
 *
 * Dictionary: libmecab locates the system dictionary (mecab_model_new2 and
 * mecab_model_dictionary_info give sys.dic's path, charset and matrix
 * size); we map its four files read-only: sys.dic (a Darts double array of
 * UTF-8 surfaces whose values index 16-byte tokens: left id, right id,
 * word cost, feature CSV), unk.dic (the same, keyed by character class),
 * matrix.bin (connection costs, right id of the left word x left id of the
 * right word) and char.bin (per UTF-16 unit: class, invoke, group). The
 * data is kuromoji's: the same CSVs, costs and char.def.
 *
 * Algorithm (kuromoji's, written from its description): a Viterbi search
 * over UTF-16 positions. From each reachable position, every dictionary
 * word starting there (shortest first) and, when there is none or the
 * character's class is "invoke", ONE unknown word (the run of characters
 * of the same class and the same punctuation-ness when the class groups,
 * else one character; up to 1024) with each unknown entry of that class,
 * is appended to the paths arriving at its end: each keeps its least-cost
 * predecessor (path cost + connection cost; the first wins ties), paths
 * are not merged by right id. Normal mode skips unknown words inside the
 * last unknown word. Whenever one path alone reaches the frontier, the
 * prefix is committed (backtraced), as kuromoji does while streaming;
 * this also decides where its search-mode threshold sees a following word.
 * Search mode: while backtracing, a word longer than 2 all-kanji or 7 other
 * characters (penalty (len-2)*3000 / (len-7)*1700) re-scores its span with
 * every too-long word penalised; if the best alternative costs no more
 * than the compound's path plus the penalty, the alternative is emitted
 * and the compound too (position increment 0, positionLength = parts)
 * unless discard_compound_token. Extended mode also splits unknown words
 * into characters. Punctuation (a token whose first char is Z*, C[cf],
 * P* or S*) is dropped unless discard_punctuation is false.
 * user_dictionary_rules add phrases (cost -100000, ids 5) found before the
 * system dictionary, emitted as their segmentation.
 *
 * Rejected: MeCab's own lattice (MECAB_ALL_MORPHS) as the source of
 * candidate words. MeCab looks words up only at positions its own unknown
 * word rules reach (lengths 1..N per unk.def, groups capped at 24), skips
 * white space, and never splits a run at a punctuation change, so the
 * words kuromoji considers at some positions are missing from it; reading
 * the compiled dictionary gives exactly kuromoji's lattice.
 *
 * Each token carries a tv_ja_morph (part of speech, base form, reading,
 * pronunciation, inflection) in the tokvec's side table for the kuromoji
 * filters. Offsets are UTF-16 positions from the start, so highlighting
 * lines up with Lucene's.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "text/text_int.h"

#ifdef TROVE_HAVE_MECAB
#include <mecab.h>
#endif

/* ------------------------------------------------------------ dictionary */

typedef struct da_unit {
    int32_t base;
    uint32_t check;
} da_unit;

typedef struct mtoken {
    uint16_t lid, rid, posid;
    int16_t wcost;
    uint32_t feature, compound;
} mtoken;

typedef struct mdic {
    const uint8_t *map;
    size_t map_len;
    const da_unit *da;
    size_t da_n;
    const mtoken *tok;
    size_t tok_n;
    const char *feat;
    size_t feat_len;
} mdic;

enum { JA_MAX_CLASSES = 32 };

typedef struct ja_dict {
    mdic sys, unk;
    const int16_t *matrix;
    uint32_t lsize, rsize;
    const uint32_t *charmap; /* 0xffff CharInfo words */
    const uint8_t *charmap_file;
    size_t charmap_len;
    const uint8_t *matrix_file;
    size_t matrix_len;
    uint32_t nclass;
    bool kanji[JA_MAX_CLASSES];           /* KANJI, KANJINUMERIC */
    uint32_t unk_first[JA_MAX_CLASSES];   /* unk tokens of each class */
    uint32_t unk_count[JA_MAX_CLASSES];
    uint32_t ngram_word;                  /* unk token of extended-mode unigrams */
} ja_dict;

static ja_dict g_dict;
static bool g_loaded, g_disabled;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static bool map_file(const char *path, const uint8_t **p, size_t *n) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    struct stat st;
    if (fstat(fd, &st) || st.st_size < 8) {
        close(fd);
        return false;
    }
    void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (m == MAP_FAILED) return false;
    *p = m;
    *n = (size_t)st.st_size;
    return true;
}

static uint32_t rd32(const uint8_t *p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

/* MeCab's dictionary file: a 72-byte header (magic ^ size, version 102,
 * type, lexicon size, lsize, rsize, dsize, tsize, fsize, 0, charset). */
static bool open_mdic(const char *path, mdic *d) {
    if (!map_file(path, &d->map, &d->map_len) || d->map_len < 72) return false;
    const uint8_t *p = d->map;
    if ((rd32(p) ^ 0xef718f77u) != d->map_len || rd32(p + 4) != 102) return false;
    uint32_t dsize = rd32(p + 24), tsize = rd32(p + 28), fsize = rd32(p + 32);
    if (72ull + dsize + tsize + fsize > d->map_len) return false;
    d->da = (const da_unit *)(p + 72);
    d->da_n = dsize / sizeof(da_unit);
    d->tok = (const mtoken *)(p + 72 + dsize);
    d->tok_n = tsize / sizeof(mtoken);
    d->feat = (const char *)(p + 72 + dsize + tsize);
    d->feat_len = fsize;
    return true;
}

/* Darts common prefix search: values and byte lengths of every key that is
 * a prefix of key[0..len), shortest first. */
static size_t da_prefix(const mdic *d, const uint8_t *key, size_t len, uint32_t *vals,
                        uint32_t *lens, size_t max) {
    const da_unit *a = d->da;
    size_t n = 0;
    int32_t b = a[0].base;
    for (size_t i = 0;; i++) {
        uint32_t p = (uint32_t)b;
        if (p >= d->da_n) return n;
        int32_t v = a[p].base;
        if (a[p].check == (uint32_t)b && v < 0 && i > 0 && n < max) {
            vals[n] = (uint32_t)(-v - 1);
            lens[n++] = (uint32_t)i;
        }
        if (i == len) return n;
        p = (uint32_t)b + key[i] + 1;
        if (p >= d->da_n || a[p].check != (uint32_t)b) return n;
        b = a[p].base;
    }
}

static bool da_exact(const mdic *d, const char *key, uint32_t *val) {
    const da_unit *a = d->da;
    int32_t b = a[0].base;
    for (const uint8_t *k = (const uint8_t *)key; *k; k++) {
        uint32_t p = (uint32_t)b + *k + 1;
        if (p >= d->da_n || a[p].check != (uint32_t)b) return false;
        b = a[p].base;
    }
    uint32_t p = (uint32_t)b;
    if (p >= d->da_n || a[p].check != (uint32_t)b || a[p].base >= 0) return false;
    *val = (uint32_t)(-a[p].base - 1);
    return true;
}

static bool load_dir(const char *dir) {
    char path[1024];
    ja_dict *d = &g_dict;
    snprintf(path, sizeof path, "%s/sys.dic", dir);
    if (!open_mdic(path, &d->sys)) return false;
    snprintf(path, sizeof path, "%s/unk.dic", dir);
    if (!open_mdic(path, &d->unk)) return false;
    snprintf(path, sizeof path, "%s/matrix.bin", dir);
    if (!map_file(path, &d->matrix_file, &d->matrix_len)) return false;
    uint16_t ls, rs;
    memcpy(&ls, d->matrix_file, 2);
    memcpy(&rs, d->matrix_file + 2, 2);
    if (4 + 2ull * ls * rs != d->matrix_len) return false;
    d->lsize = ls;
    d->rsize = rs;
    d->matrix = (const int16_t *)(d->matrix_file + 4);
    snprintf(path, sizeof path, "%s/char.bin", dir);
    if (!map_file(path, &d->charmap_file, &d->charmap_len)) return false;
    uint32_t nc = rd32(d->charmap_file);
    if (nc == 0 || nc > JA_MAX_CLASSES || 4 + 32ull * nc + 4ull * 0xffff != d->charmap_len)
        return false;
    d->nclass = nc;
    d->charmap = (const uint32_t *)(d->charmap_file + 4 + 32 * nc);
    for (uint32_t c = 0; c < nc; c++) {
        char name[33];
        memcpy(name, d->charmap_file + 4 + 32 * c, 32);
        name[32] = 0;
        d->kanji[c] = !strcmp(name, "KANJI") || !strcmp(name, "KANJINUMERIC");
        uint32_t v;
        if (!da_exact(&d->unk, name, &v)) return false;
        d->unk_first[c] = v >> 8;
        d->unk_count[c] = v & 0xff;
        if (d->unk_first[c] + d->unk_count[c] > d->unk.tok_n) return false;
        if (c == 0) d->ngram_word = d->unk_first[c]; /* DEFAULT: kuromoji's NGRAM entry */
    }
    /* every id must index the matrix */
    for (size_t i = 0; i < d->sys.tok_n; i++)
        if (d->sys.tok[i].lid >= d->rsize || d->sys.tok[i].rid >= d->lsize) return false;
    for (size_t i = 0; i < d->unk.tok_n; i++)
        if (d->unk.tok[i].lid >= d->rsize || d->unk.tok[i].rid >= d->lsize) return false;
    return true;
}

static void load_once(void) {
#ifdef TROVE_HAVE_MECAB
    const char *env = getenv("TROVE_MECAB_DICDIR");
    char arg[1100];
    const char *dirs[] = {env, "/var/lib/mecab/dic/ipadic-utf8", NULL};
    mecab_model_t *m = NULL;
    for (size_t i = 0; i < TV_ARRAY_LEN(dirs) && !m; i++) {
        if (i < 2 && (!dirs[i] || access(dirs[i], R_OK))) continue;
        if (dirs[i]) snprintf(arg, sizeof arg, "mecab -d %s", dirs[i]);
        else snprintf(arg, sizeof arg, "mecab");
        m = mecab_model_new2(arg);
    }
    if (!m) return;
    const mecab_dictionary_info_t *di = mecab_model_dictionary_info(m);
    char dir[1024] = "";
    bool ok = false;
    for (; di; di = di->next) {
        if (di->type != MECAB_SYS_DIC || !di->filename) continue;
        bool utf8 = di->charset && (!strcasecmp(di->charset, "utf-8") || !strcasecmp(di->charset, "utf8"));
        const char *slash = strrchr(di->filename, '/');
        if (!utf8 || !slash || (size_t)(slash - di->filename) >= sizeof dir) break;
        memcpy(dir, di->filename, (size_t)(slash - di->filename));
        dir[slash - di->filename] = 0;
        ok = true;
        break;
    }
    mecab_model_destroy(m);
    if (ok && load_dir(dir)) g_loaded = true;
#endif
}

bool tv_ja_available(void) {
    if (g_disabled) return false;
    pthread_once(&g_once, load_once);
    return g_loaded;
}

void tv_ja_disable(void) { g_disabled = true; }

/* CharInfo bit fields (gcc's layout of MeCab's struct): type 18, default
 * type 8, length 4, group 1, invoke 1. */
static inline uint32_t ch_info(const ja_dict *d, uint16_t c) {
    return c < 0xffff ? d->charmap[c] : d->charmap[0];
}
static inline uint32_t ch_class(const ja_dict *d, uint16_t c) {
    uint32_t k = (ch_info(d, c) >> 18) & 0xff;
    return k < d->nclass ? k : 0;
}
static inline bool ch_group(const ja_dict *d, uint16_t c) { return (ch_info(d, c) >> 30) & 1; }
static inline bool ch_invoke(const ja_dict *d, uint16_t c) { return (ch_info(d, c) >> 31) & 1; }

static inline bool ja_punct(uint16_t c) {
    if (c >= 0xD800 && c < 0xE000) return false; /* Java: SURROGATE */
    return tv_uc_props(c)->flags & TV_UCF_JPUNCT;
}

/* ------------------------------------------------------------ settings */

enum { MODE_NORMAL, MODE_SEARCH, MODE_EXTENDED };

typedef struct user_phrase {
    uint16_t *surface; /* UTF-16 */
    uint32_t len;
    uint32_t nseg;
    uint32_t *seglen;      /* UTF-16 lengths */
    tv_ja_morph *segmorph; /* per segment: pos, reading */
} user_phrase;

typedef struct kuro_cfg {
    uint8_t mode;
    bool discard_punct, discard_compound;
    user_phrase *user;
    size_t nuser;
} kuro_cfg;

/* UTF-8 to UTF-16 units (in a), *n units. */
static uint16_t *to_u16(tv_arena *a, const char *s, size_t len, uint32_t *n,
                        uint32_t **boff_out) {
    uint16_t *u = tv_arena_alloc(a, (len + 1) * sizeof *u);
    uint32_t *boff = boff_out ? tv_arena_alloc(a, (len + 2) * sizeof *boff) : NULL;
    if (!u || (boff_out && !boff)) return NULL;
    uint32_t k = 0;
    const uint8_t *p = (const uint8_t *)s, *e = p + len;
    while (p < e) {
        uint32_t cp;
        size_t b = (size_t)(p - (const uint8_t *)s);
        p += tv_utf8_decode(p, e, &cp);
        if (cp >= 0x10000) {
            cp -= 0x10000;
            if (boff) boff[k] = (uint32_t)b, boff[k + 1] = (uint32_t)b;
            u[k++] = (uint16_t)(0xD800 + (cp >> 10));
            u[k++] = (uint16_t)(0xDC00 + (cp & 0x3FF));
        } else {
            if (boff) boff[k] = (uint32_t)b;
            u[k++] = (uint16_t)cp;
        }
    }
    if (boff) boff[k] = (uint32_t)len;
    *n = k;
    if (boff_out) *boff_out = boff;
    return u;
}

/* Splits s on runs of spaces (Lucene: replaceAll("  *", " ").split(" ")). */
static size_t split_spaces(const char *s, size_t n, const char **parts, size_t *lens, size_t max) {
    size_t k = 0, i = 0;
    while (i <= n && k < max) {
        size_t j = i;
        while (j < n && s[j] != ' ') j++;
        if (j > i || k > 0 || j < n) {
            parts[k] = s + i;
            lens[k++] = j - i;
        }
        while (j < n && s[j] == ' ') j++;
        if (j >= n) break;
        i = j;
    }
    /* Java's split drops trailing empty strings */
    while (k > 0 && lens[k - 1] == 0) k--;
    return k;
}

/* One CSV line as Lucene's CSVUtil.parse: commas outside double quotes
 * split, "" inside quotes is a quote. Returns the field count. */
static size_t csv_fields(tv_comp *c, const char *s, size_t n, char **f, size_t *fl, size_t max) {
    size_t k = 0;
    tv_buf b = {0};
    bool q = false;
    for (size_t i = 0; i <= n; i++) {
        if (i == n || (s[i] == ',' && !q)) {
            if (k < max) {
                f[k] = tv_comp_strdup(c, b.data ? b.data : "", b.len);
                fl[k] = b.len;
            }
            k++;
            b.len = 0;
            continue;
        }
        if (s[i] == '"') {
            if (q && i + 1 < n && s[i + 1] == '"') {
                tv_buf_putc(&b, '"');
                i++;
            } else {
                q = !q;
            }
            continue;
        }
        tv_buf_putc(&b, s[i]);
    }
    tv_buf_fini(&b);
    return k;
}

static int cmp_u16(const uint16_t *a, uint32_t an, const uint16_t *b, uint32_t bn) {
    uint32_t m = an < bn ? an : bn;
    for (uint32_t i = 0; i < m; i++)
        if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
    return an < bn ? -1 : an > bn;
}

static int cmp_phrase(const void *x, const void *y) {
    const user_phrase *a = x, *b = y;
    return cmp_u16(a->surface, a->len, b->surface, b->len);
}

static tv_status build_user(tv_comp *c, kuro_cfg *k, tv_error *err) {
    const char *const *rules;
    const size_t *rlens;
    size_t n;
    tv_comp_list(c, "user_dictionary_rules", &rules, &rlens, &n);
    if (tv_comp_has(c, "user_dictionary") && n)
        return tv_error_set(err, TROVE_EARG,
                            "It is not allowed to use [user_dictionary] in conjunction with [user_dictionary_rules]");
    if (tv_comp_has(c, "user_dictionary"))
        return tv_error_set(err, TROVE_EUNSUPPORTED,
                            "[user_dictionary] files are not supported (trove has no config directory); use [user_dictionary_rules]");
    if (!n) return TROVE_OK;
    k->user = tv_comp_alloc(c, n * sizeof *k->user);
    if (!k->user) return TROVE_ENOMEM;
    tv_arena tmp;
    tv_arena_init(&tmp);
    tv_status st = TROVE_OK;
    for (size_t i = 0; i < n && !st; i++) {
        /* comments and blank lines, as UserDictionary.open */
        size_t ln = rlens[i];
        for (size_t j = 0; j < ln; j++)
            if (rules[i][j] == '#') {
                ln = j;
                break;
            }
        bool blank = true;
        for (size_t j = 0; j < ln; j++)
            if (rules[i][j] != ' ' && rules[i][j] != '\t') blank = false;
        if (blank) continue;
        char *f[8];
        size_t fl[8];
        size_t nf = csv_fields(c, rules[i], ln, f, fl, 8);
        if (nf < 4) {
            st = tv_error_set(err, TROVE_EARG, "Illegal user dictionary entry [%.*s]", (int)ln,
                              rules[i]);
            break;
        }
        for (size_t j = 0; j < k->nuser; j++) {
            user_phrase *p = &k->user[j];
            uint32_t sn;
            uint16_t *su = to_u16(&tmp, f[0], fl[0], &sn, NULL);
            if (su && !cmp_u16(su, sn, p->surface, p->len)) {
                st = tv_error_set(err, TROVE_EARG,
                                  "Found duplicate term [%s] in user dictionary at line [%zu]",
                                  f[0], i + 1);
                break;
            }
        }
        if (st) break;
        const char *seg[256], *rd[256];
        size_t segl[256], rdl[256];
        size_t ns = split_spaces(f[1], fl[1], seg, segl, 256);
        size_t nr = split_spaces(f[2], fl[2], rd, rdl, 256);
        if (ns != nr) {
            st = tv_error_set(err, TROVE_EARG,
                              "Illegal user dictionary entry %s - the number of segmentations (%zu) does not the match number of readings (%zu)",
                              f[0], ns, nr);
            break;
        }
        tv_buf cat = {0};
        for (size_t j = 0; j < ns; j++) tv_buf_append(&cat, seg[j], segl[j]);
        bool same = cat.len == fl[0] && (!cat.len || !memcmp(cat.data, f[0], cat.len));
        if (!same) {
            st = tv_error_set(err, TROVE_EARG,
                              "Illegal user dictionary entry %s - the concatenated segmentation (%.*s) does not match the surface form (%s)",
                              f[0], (int)cat.len, cat.data ? cat.data : "", f[0]);
            tv_buf_fini(&cat);
            break;
        }
        tv_buf_fini(&cat);
        user_phrase *p = &k->user[k->nuser];
        uint32_t sn;
        uint16_t *su = to_u16(&tmp, f[0], fl[0], &sn, NULL);
        p->surface = su ? tv_comp_alloc(c, (sn + 1) * sizeof *su) : NULL;
        p->seglen = tv_comp_alloc(c, (ns + 1) * sizeof *p->seglen);
        p->segmorph = tv_comp_alloc(c, (ns + 1) * sizeof *p->segmorph);
        if (!p->surface || !p->seglen || !p->segmorph || sn == 0) {
            st = sn == 0 ? tv_error_set(err, TROVE_EARG, "Illegal user dictionary entry %s", f[0])
                         : TROVE_ENOMEM;
            break;
        }
        memcpy(p->surface, su, sn * sizeof *su);
        p->len = sn;
        p->nseg = (uint32_t)ns;
        for (size_t j = 0; j < ns; j++) {
            uint32_t u;
            if (!to_u16(&tmp, seg[j], segl[j], &u, NULL)) {
                st = TROVE_ENOMEM;
                break;
            }
            p->seglen[j] = u;
            p->segmorph[j] = (tv_ja_morph){.pos = f[3], .reading = tv_comp_strdup(c, rd[j], rdl[j])};
        }
        k->nuser++;
    }
    tv_arena_fini(&tmp);
    if (st) return st;
    qsort(k->user, k->nuser, sizeof *k->user, cmp_phrase);
    return TROVE_OK;
}

static tv_status kuro_build(tv_comp *c, const void **cfg, tv_error *err) {
    if (!tv_ja_available())
        return tv_error_set(err, TROVE_EUNSUPPORTED,
                            "tokenizer [kuromoji_tokenizer] is not supported: the Japanese dictionary (mecab-ipadic-utf8) is not available");
    kuro_cfg *k = tv_comp_alloc(c, sizeof *k);
    if (!k) return TROVE_ENOMEM;
    memset(k, 0, sizeof *k);
    k->mode = MODE_SEARCH;
    size_t ml;
    const char *m = tv_comp_str(c, "mode", &ml);
    if (m) {
        /* Mode.valueOf(mode.toUpperCase(Locale.ENGLISH)) */
        char up[16];
        size_t i = 0;
        for (; i < ml && i < sizeof up - 1; i++)
            up[i] = (char)(m[i] >= 'a' && m[i] <= 'z' ? m[i] - 32 : m[i]);
        up[i] = 0;
        if (ml < sizeof up && !strcmp(up, "NORMAL")) k->mode = MODE_NORMAL;
        else if (ml < sizeof up && !strcmp(up, "SEARCH")) k->mode = MODE_SEARCH;
        else if (ml < sizeof up && !strcmp(up, "EXTENDED")) k->mode = MODE_EXTENDED;
        else
            return tv_error_set(err, TROVE_EARG,
                                "No enum constant org.apache.lucene.analysis.ja.JapaneseTokenizer.Mode.%.*s",
                                (int)ml, up);
    }
    tv_status st = tv_comp_bool(c, "discard_punctuation", true, &k->discard_punct, err);
    if (st) return st;
    st = tv_comp_bool(c, "discard_compound_token", false, &k->discard_compound, err);
    if (st) return st;
    if (tv_comp_has(c, "nbest_cost") || tv_comp_has(c, "nbest_examples"))
        return tv_error_set(err, TROVE_EUNSUPPORTED,
                            "kuromoji_tokenizer [nbest_cost] and [nbest_examples] are not supported");
    st = build_user(c, k, err);
    if (st) return st;
    *cfg = k;
    return TROVE_OK;
}

/* ------------------------------------------------------------ lattice */

enum { JT_KNOWN, JT_UNKNOWN, JT_USER };

typedef struct jpath {
    int32_t cost, back_pos, back_idx;
    uint32_t word;
    uint16_t rid;
    uint8_t type;
} jpath;

typedef struct jfwd {
    int32_t to;
    uint32_t word;
    uint8_t type;
} jfwd;

typedef struct jpos {
    jpath *p;
    uint32_t n, cap;
    jfwd *f;
    uint32_t fn, fcap;
} jpos;

typedef struct jtok {
    int32_t start, len, position;
    uint32_t word, seg; /* seg: user phrase segment */
    uint16_t pos_len;
    uint8_t type;
} jtok;

typedef struct jctx {
    tv_arena *a;
    const ja_dict *d;
    const kuro_cfg *k;
    const uint16_t *u;
    int32_t n;
    jpos *pos;
    int32_t max_end;
    int32_t last_bt;
    jtok *pend; /* one backtrace's tokens, last first */
    size_t np, pcap;
    jtok *out; /* all tokens in order */
    size_t no, ocap;
} jctx;

static inline int32_t w_lid(const jctx *c, uint8_t type, uint32_t w) {
    if (type == JT_USER) return 5;
    return type == JT_KNOWN ? c->d->sys.tok[w].lid : c->d->unk.tok[w].lid;
}
static inline int32_t w_rid(const jctx *c, uint8_t type, uint32_t w) {
    if (type == JT_USER) return 5;
    return type == JT_KNOWN ? c->d->sys.tok[w].rid : c->d->unk.tok[w].rid;
}
static inline int32_t w_cost(const jctx *c, uint8_t type, uint32_t w) {
    if (type == JT_USER) return -100000;
    return type == JT_KNOWN ? c->d->sys.tok[w].wcost : c->d->unk.tok[w].wcost;
}
static inline int32_t conn(const jctx *c, int32_t rid, int32_t lid) {
    return c->d->matrix[(uint32_t)rid + c->d->lsize * (uint32_t)lid];
}

static int32_t penalty(const jctx *c, int32_t pos, int32_t len) {
    if (len > 2) {
        bool kanji = true;
        for (int32_t i = pos; i < pos + len && kanji; i++)
            kanji = c->d->kanji[ch_class(c->d, c->u[i])];
        if (kanji) return (len - 2) * 3000;
        if (len > 7) return (len - 7) * 1700;
    }
    return 0;
}

static tv_status grow(tv_arena *a, void **items, uint32_t *cap, size_t size) {
    uint32_t nc = *cap ? *cap * 2 : 4;
    void *n = tv_arena_alloc(a, (size_t)nc * size);
    if (!n) return TROVE_ENOMEM;
    if (*cap) memcpy(n, *items, (size_t)*cap * size);
    *items = n;
    *cap = nc;
    return TROVE_OK;
}

static tv_status pos_push(jctx *c, int32_t at, jpath p) {
    jpos *P = &c->pos[at];
    if (P->n == P->cap && grow(c->a, (void **)&P->p, &P->cap, sizeof *P->p)) return TROVE_ENOMEM;
    P->p[P->n++] = p;
    if (at > c->max_end) c->max_end = at;
    return TROVE_OK;
}

static tv_status add(jctx *c, int32_t from, int32_t end, uint8_t type, uint32_t w,
                     bool with_penalty) {
    const jpos *F = &c->pos[from];
    int32_t lid = w_lid(c, type, w);
    int64_t least = INT64_MAX;
    int32_t idx = -1;
    for (uint32_t i = 0; i < F->n; i++) {
        int64_t cost = (int64_t)F->p[i].cost + conn(c, F->p[i].rid, lid);
        if (cost < least) {
            least = cost;
            idx = (int32_t)i;
        }
    }
    least += w_cost(c, type, w);
    if (with_penalty && type != JT_USER) least += penalty(c, from, end - from);
    return pos_push(c, end, (jpath){(int32_t)least, from, idx, w, (uint16_t)w_rid(c, type, w), type});
}

static tv_status fwd_push(jctx *c, int32_t at, jfwd f) {
    jpos *P = &c->pos[at];
    if (P->fn == P->fcap && grow(c->a, (void **)&P->f, &P->fcap, sizeof *P->f)) return TROVE_ENOMEM;
    P->f[P->fn++] = f;
    return TROVE_OK;
}

/* Drops the arcs that cross startPos and re-scores [startPos, endPos) with
 * every too-long word penalised, starting from the compound's predecessor. */
static tv_status prune_rescore(jctx *c, int32_t start, int32_t end, int32_t best_start) {
    for (int32_t p = end; p > start; p--) {
        jpos *P = &c->pos[p];
        for (uint32_t i = 0; i < P->n; i++)
            if (P->p[i].back_pos >= start &&
                fwd_push(c, P->p[i].back_pos, (jfwd){p, P->p[i].word, P->p[i].type}))
                return TROVE_ENOMEM;
        P->n = 0;
    }
    for (int32_t p = start; p < end; p++) {
        jpos *P = &c->pos[p];
        if (!P->n) {
            P->fn = 0;
            continue;
        }
        if (p == start) {
            int32_t rid = start == 0 ? 0 : P->p[best_start].rid;
            int32_t path = P->p[best_start].cost;
            for (uint32_t i = 0; i < P->fn; i++) {
                jfwd f = P->f[i];
                int32_t cost = path + w_cost(c, f.type, f.word) + conn(c, rid, w_lid(c, f.type, f.word)) +
                               penalty(c, p, f.to - p);
                if (pos_push(c, f.to, (jpath){cost, p, best_start, f.word,
                                              (uint16_t)w_rid(c, f.type, f.word), f.type}))
                    return TROVE_ENOMEM;
            }
        } else {
            for (uint32_t i = 0; i < P->fn; i++)
                if (add(c, p, P->f[i].to, P->f[i].type, P->f[i].word, true)) return TROVE_ENOMEM;
        }
        P->fn = 0;
    }
    return TROVE_OK;
}

static tv_status pend(jctx *c, jtok t) {
    if (c->np == c->pcap) {
        uint32_t cap = (uint32_t)c->pcap;
        if (grow(c->a, (void **)&c->pend, &cap, sizeof *c->pend)) return TROVE_ENOMEM;
        c->pcap = cap;
    }
    c->pend[c->np++] = t;
    return TROVE_OK;
}

static tv_status backtrace(jctx *c, int32_t end_pos, int32_t from_idx) {
    if (end_pos == c->last_bt) return TROVE_OK;
    const kuro_cfg *k = c->k;
    bool search = k->mode != MODE_NORMAL, extended = k->mode == MODE_EXTENDED;
    int32_t pos = end_pos, best = from_idx, last_left = -1, back_count = 0;
    bool has_alt = false;
    jtok alt = {0};
    c->np = 0;
    while (pos > c->last_bt) {
        jpos *P = &c->pos[pos];
        jpath pp = P->p[best];
        int32_t back = pp.back_pos, len = pos - back, next = pp.back_idx;
        uint8_t type = pp.type;
        uint32_t w = pp.word;
        if (search && !has_alt && type != JT_USER) {
            int32_t pen = penalty(c, back, pos - back);
            if (pen > 0) {
                int64_t max_cost = (int64_t)pp.cost + pen;
                if (last_left != -1) max_cost += conn(c, w_rid(c, type, w), last_left);
                if (prune_rescore(c, back, pos, pp.back_idx)) return TROVE_ENOMEM;
                int64_t least = INT64_MAX;
                int32_t li = -1;
                for (uint32_t i = 0; i < P->n; i++) {
                    int64_t cost = P->p[i].cost;
                    if (last_left != -1) cost += conn(c, P->p[i].rid, last_left);
                    if (cost < least) {
                        least = cost;
                        li = (int32_t)i;
                    }
                }
                if (li != -1 && least <= max_cost && P->p[li].back_pos != back) {
                    alt = (jtok){.start = back, .len = len, .position = back, .word = w, .type = type};
                    has_alt = true;
                    best = li;
                    next = P->p[li].back_idx;
                    back = P->p[li].back_pos;
                    len = pos - back;
                    type = P->p[li].type;
                    w = P->p[li].word;
                    back_count = 0;
                }
            }
        }
        if (has_alt && alt.position >= back) {
            if (!k->discard_compound && back_count > 0) {
                back_count++;
                alt.pos_len = (uint16_t)(back_count > 0xffff ? 0xffff : back_count);
                if (pend(c, alt)) return TROVE_ENOMEM;
            }
            has_alt = false;
        }
        if (type == JT_USER) {
            const user_phrase *ph = &k->user[w];
            size_t first = c->np;
            int32_t cur = 0;
            for (uint32_t j = 0; j < ph->nseg; j++) {
                if (pend(c, (jtok){.start = back + cur, .len = (int32_t)ph->seglen[j],
                                   .position = back + cur, .word = w, .seg = j, .type = JT_USER}))
                    return TROVE_ENOMEM;
                cur += (int32_t)ph->seglen[j];
            }
            for (size_t i = first, j = c->np - 1; i < j; i++, j--) {
                jtok t = c->pend[i];
                c->pend[i] = c->pend[j];
                c->pend[j] = t;
            }
            back_count += (int32_t)ph->nseg;
        } else if (extended && type == JT_UNKNOWN) {
            int32_t cnt = 0;
            for (int32_t i = len - 1; i >= 0; i--) {
                int32_t cl = 1;
                if (i > 0 && c->u[back + i] >= 0xDC00 && c->u[back + i] < 0xE000) {
                    i--;
                    cl = 2;
                }
                if (!k->discard_punct || !ja_punct(c->u[back + i])) {
                    if (pend(c, (jtok){.start = back + i, .len = cl, .position = back + i,
                                       .word = c->d->ngram_word, .type = JT_UNKNOWN}))
                        return TROVE_ENOMEM;
                    cnt++;
                }
            }
            back_count += cnt;
        } else if (!k->discard_punct || len == 0 || !ja_punct(c->u[back])) {
            if (pend(c, (jtok){.start = back, .len = len, .position = back, .word = w, .type = type}))
                return TROVE_ENOMEM;
            back_count++;
        }
        last_left = w_lid(c, type, w);
        pos = back;
        best = next;
    }
    c->last_bt = end_pos;
    /* the pending list is served last first */
    for (size_t i = c->np; i-- > 0;) {
        if (c->no == c->ocap) {
            uint32_t cap = (uint32_t)c->ocap;
            if (grow(c->a, (void **)&c->out, &cap, sizeof *c->out)) return TROVE_ENOMEM;
            c->ocap = cap;
        }
        c->out[c->no++] = c->pend[i];
    }
    return TROVE_OK;
}

static tv_status parse(jctx *c, const char *text, const uint32_t *boff) {
    const ja_dict *d = c->d;
    const kuro_cfg *k = c->k;
    bool search = k->mode != MODE_NORMAL;
    if (pos_push(c, 0, (jpath){0, -1, -1, 0, 0, JT_KNOWN})) return TROVE_ENOMEM;
    c->max_end = 0;
    int32_t unk_end = -1;
    uint32_t vals[64], lens[64];
    for (int32_t p = 0; p < c->n;) {
        jpos *P = &c->pos[p];
        if (!P->n) {
            p++;
            continue;
        }
        if (p > c->last_bt && P->n == 1 && c->max_end <= p) {
            size_t before = c->no;
            if (backtrace(c, p, 0)) return TROVE_ENOMEM;
            if (c->no > before) unk_end = -1; /* parse() returned: its local resets */
            P->p[0].cost = 0;
        }
        bool any = false;
        if (k->nuser) {
            /* user phrases that prefix the text here, shortest first (as
             * the FST finds them); surfaces are distinct */
            int32_t best_len = 0;
            for (;;) {
                int32_t next_len = INT32_MAX;
                size_t which = 0;
                for (size_t i = 0; i < k->nuser; i++) {
                    const user_phrase *ph = &k->user[i];
                    int32_t L = (int32_t)ph->len;
                    if (L <= best_len || L >= next_len || p + L > c->n) continue;
                    if (!memcmp(ph->surface, c->u + p, (size_t)L * sizeof *c->u)) {
                        next_len = L;
                        which = i;
                    }
                }
                if (next_len == INT32_MAX) break;
                if (add(c, p, p + next_len, JT_USER, (uint32_t)which, false)) return TROVE_ENOMEM;
                any = true;
                best_len = next_len;
            }
        }
        if (!any && !(c->u[p] >= 0xDC00 && c->u[p] < 0xE000)) {
            size_t b0 = boff[p];
            size_t nm = da_prefix(&d->sys, (const uint8_t *)text + b0, boff[c->n] - b0, vals, lens,
                                  TV_ARRAY_LEN(vals));
            int32_t q = p; /* unit index of the end, advanced with the byte length */
            for (size_t m = 0; m < nm; m++) {
                size_t eb = b0 + lens[m];
                while (q < c->n && boff[q] < eb) q++;
                if (boff[q] != eb) continue; /* not at a code point boundary */
                uint32_t first = vals[m] >> 8, cnt = vals[m] & 0xff;
                for (uint32_t t = 0; t < cnt && first + t < d->sys.tok_n; t++) {
                    if (add(c, p, q, JT_KNOWN, first + t, false)) return TROVE_ENOMEM;
                    any = true;
                }
            }
        }
        if (!search && unk_end > p) {
            p++;
            continue;
        }
        uint16_t ch = c->u[p];
        if (!any || ch_invoke(d, ch)) {
            uint32_t cls = ch_class(d, ch);
            bool punct = ja_punct(ch);
            int32_t ulen = 1;
            if (ch_group(d, ch)) {
                for (int32_t q = p + 1; ulen < 1024 && q < c->n; q++) {
                    if (ch_class(d, c->u[q]) == cls && ja_punct(c->u[q]) == punct) ulen++;
                    else break;
                }
            }
            for (uint32_t t = 0; t < d->unk_count[cls]; t++)
                if (add(c, p, p + ulen, JT_UNKNOWN, d->unk_first[cls] + t, false)) return TROVE_ENOMEM;
            unk_end = p + ulen;
        }
        p++;
    }
    if (c->n > 0) {
        jpos *E = &c->pos[c->n];
        int64_t least = INT64_MAX;
        int32_t li = -1;
        for (uint32_t i = 0; i < E->n; i++) {
            int64_t cost = (int64_t)E->p[i].cost + conn(c, E->p[i].rid, 0);
            if (cost < least) {
                least = cost;
                li = (int32_t)i;
            }
        }
        if (li >= 0 && backtrace(c, c->n, li)) return TROVE_ENOMEM;
    }
    return TROVE_OK;
}

/* ------------------------------------------------------------ morphology */

/* Field i (0-based) of a MeCab feature CSV, "*" as NULL, copied. */
static const char *feat_field(tv_arena *a, const char *f, int i, size_t *len) {
    const char *s = f;
    for (int k = 0; k < i; k++) {
        s = strchr(s, ',');
        if (!s) return NULL;
        s++;
    }
    const char *e = strchr(s, ',');
    size_t n = e ? (size_t)(e - s) : strlen(s);
    if (len) *len = n;
    if (n == 0 || (n == 1 && *s == '*')) return NULL;
    return tv_arena_strndup(a, s, n);
}

static tv_status morph_of(tv_arena *a, const jctx *c, const jtok *t, tv_ja_morph *m) {
    memset(m, 0, sizeof *m);
    if (t->type == JT_USER) {
        *m = c->k->user[t->word].segmorph[t->seg];
        return TROVE_OK;
    }
    const mdic *d = t->type == JT_KNOWN ? &c->d->sys : &c->d->unk;
    const mtoken *tk = &d->tok[t->word];
    if (tk->feature >= d->feat_len) return TROVE_OK;
    const char *f = d->feat + tk->feature;
    tv_buf b = {0};
    for (int i = 0; i < 4; i++) {
        size_t n;
        const char *v = feat_field(a, f, i, &n);
        if (!v) continue;
        if (b.len) tv_buf_putc(&b, '-');
        tv_buf_append(&b, v, n);
    }
    m->pos = tv_arena_strndup(a, b.data ? b.data : "", b.len);
    tv_buf_fini(&b);
    if (!m->pos) return TROVE_ENOMEM;
    m->infl_type = feat_field(a, f, 4, NULL);
    m->infl_form = feat_field(a, f, 5, NULL);
    if (t->type == JT_KNOWN) {
        m->base = feat_field(a, f, 6, NULL);
        m->reading = feat_field(a, f, 7, NULL);
        m->pron = feat_field(a, f, 8, NULL);
    }
    return TROVE_OK;
}

/* ------------------------------------------------------------ the tokenizer */

static tv_status kuro_run(tv_arena *a, const void *cfg, const char *text, size_t len,
                          tv_tokvec *out) {
    const kuro_cfg *k = cfg;
    if (!tv_ja_available()) return TROVE_EUNSUPPORTED;
    uint32_t n, *boff;
    uint16_t *u = to_u16(a, text, len, &n, &boff);
    if (!u) return TROVE_ENOMEM;
    jctx c = {.a = a, .d = &g_dict, .k = k, .u = u, .n = (int32_t)n};
    c.pos = tv_arena_calloc(a, (size_t)n + 2, sizeof *c.pos);
    if (!c.pos) return TROVE_ENOMEM;
    tv_status st = parse(&c, text, boff);
    if (st) return st;
    tv_ja_morph *morph = tv_arena_alloc(a, (c.no + 1) * sizeof *morph);
    if (!morph) return TROVE_ENOMEM;
    size_t base = out->len;
    int32_t last_pos = -1;
    for (size_t i = 0; i < c.no; i++) {
        const jtok *t = &c.out[i];
        if (t->len <= 0) continue;
        uint32_t s = boff[t->start], e = boff[t->start + t->len];
        tv_token tok = {.term = text + s, .term_len = e - s, .start = s, .end = e,
                        .start16 = (uint32_t)t->start, .end16 = (uint32_t)(t->start + t->len),
                        .type = TV_TOK_WORD};
        if (t->position == last_pos) {
            tok.position = 0;
            tok.pos_len = t->pos_len ? t->pos_len : 1;
        } else {
            tok.position = 1;
            tok.pos_len = 1;
        }
        last_pos = t->position;
        size_t mi = out->len - base;
        if (morph_of(a, &c, t, &morph[mi])) return TROVE_ENOMEM;
        tok.attr = (uint32_t)mi + 1;
        if (tv_tokvec_push(a, out, &tok)) return TROVE_ENOMEM;
    }
    out->morph = morph; /* indexed from this run's first token (a tokenizer runs once) */
    return TROVE_OK;
}

const tv_tokenizer_type tv_tok_kuromoji = {"kuromoji_tokenizer", kuro_build, kuro_run};

/* The tokenizer of the `kuromoji` analyzer from the analyzer's settings:
 * mode and user dictionary; punctuation and compound tokens discarded
 * (Lucene 10's JapaneseAnalyzer: new JapaneseTokenizer(userDict, true,
 * true, mode)). */
tv_status tv_ja_analyzer_tokenizer(tv_comp *c, const void **cfg, tv_error *err) {
    if (!tv_ja_available())
        return tv_error_set(err, TROVE_EUNSUPPORTED,
                            "analyzer [kuromoji] is not supported: the Japanese dictionary (mecab-ipadic-utf8) is not available");
    tv_status st = kuro_build(c, cfg, err);
    if (st) return st;
    kuro_cfg *k = (kuro_cfg *)*cfg;
    k->discard_punct = true;
    k->discard_compound = true;
    return TROVE_OK;
}
