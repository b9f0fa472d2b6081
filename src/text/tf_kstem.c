/*
 * tf_kstem.c — the `kstem` token filter and the `stemmer` languages
 * `light_english` / `lightEnglish` / `kstem` (Lucene's KStemFilter: Bob
 * Krovetz's dictionary-driven English stemmer).
 *
 * Data: the dictionary (about 28,000 headwords, 41 exception words, 40
 * direct conflations such as "aging"->"age", 149 nationality->country
 * pairs) is compiled into Lucene's KStemmer/KStemData* classes;
 * gen_resources.py reads it out of Debian's jar into "en/kstem.dict",
 * which is hashed once per process here (open addressing, FNV-1a).
 *
 * Algorithm (as KStemmer behaves; written from reading its logic):
 *  - terms of fewer than 3 or more than 49 characters, and terms with a
 *    character outside a-z, are left alone (the filter expects lower case);
 *  - a term found in the dictionary is its own stem, unless the entry
 *    names a root (conflations, nationalities);
 *  - otherwise the suffix steps run in order — plurals, -ed, -ing, -ity,
 *    -ness, -ion, -er/-or, -ly, -al, -ive, -ize, -ment, -ble, -ism, -ic,
 *    -ncy, -nce — each trying candidate roots against the dictionary and
 *    leaving a default form when none is found; the first step whose last
 *    lookup hits ends the run, and a hit's root (if the entry has one)
 *    replaces the word.
 * The word buffer, its "last letter" index k and the stem end j are kept
 * separately, as the steps rely on the exact interplay (some steps test a
 * candidate while k still points at the old end). Tokens marked keyword
 * are not stemmed.
 *
 * Rejected: a perfect hash generated at build time (the table is built in
 * a few milliseconds, once); caching stems per term (KStemFilter does not
 * either, and the steps are cheap).
 */
#include <pthread.h>

#include "text/text_int.h"

/* ------------------------------------------------------------ dictionary */

typedef struct ks_entry {
    const char *word, *root; /* root NULL: the word is its own stem */
    uint8_t len, root_len;
    bool exception;
} ks_entry;

static ks_entry *dict; /* built once, kept for the process */
static size_t dict_mask;
static pthread_mutex_t dict_mu = PTHREAD_MUTEX_INITIALIZER;

static uint32_t ks_hash(const char *s, size_t n) {
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) h = (h ^ (uint8_t)s[i]) * 16777619u;
    return h;
}

static void dict_build(void) {
    size_t n;
    const char *d = tv_resource("en/kstem.dict", &n);
    if (!d) return;
    size_t lines = 0;
    for (size_t i = 0; i < n; i++) lines += d[i] == '\n';
    size_t cap = 1;
    while (cap < lines * 2) cap <<= 1;
    ks_entry *t = tv_malloc(cap * sizeof *t);
    if (!t) return;
    memset(t, 0, cap * sizeof *t);
    for (size_t i = 0; i < n;) {
        size_t e = i, tab = 0;
        while (e < n && d[e] != '\n') {
            if (d[e] == '\t') tab = e;
            e++;
        }
        ks_entry en = {.word = d + i, .len = (uint8_t)((tab ? tab : e) - i)};
        if (tab && e - tab == 2 && d[tab + 1] == '=') {
            en.exception = true;
            en.root = en.word; /* an exception is its own root */
            en.root_len = en.len;
        } else if (tab) {
            en.root = d + tab + 1;
            en.root_len = (uint8_t)(e - tab - 1);
        }
        size_t h = ks_hash(en.word, en.len) & (cap - 1);
        while (t[h].word) h = (h + 1) & (cap - 1);
        t[h] = en;
        i = e + 1;
    }
    dict_mask = cap - 1;
    dict = t;
}

static const ks_entry *dict_get(const char *s, size_t n) {
    if (!dict) return NULL;
    for (size_t h = ks_hash(s, n) & dict_mask; dict[h].word; h = (h + 1) & dict_mask)
        if (dict[h].len == n && memcmp(dict[h].word, s, n) == 0) return &dict[h];
    return NULL;
}

/* ------------------------------------------------------------- the steps */

enum { KS_MAX = 50 }; /* KStemmer's MaxWordLen */

typedef struct ks {
    char w[KS_MAX + 16]; /* the word; steps grow it by at most 2 */
    int len;             /* its length */
    int k;               /* index of the word's last letter, as the steps see it */
    int j;               /* index of the stem's last letter (set by ends_*) */
    const ks_entry *hit; /* the last lookup's entry */
} ks;

static void set_len(ks *s, int n) { s->len = n; }
static void put(ks *s, char c) { s->w[s->len++] = c; }
static void add(ks *s, const char *t) {
    while (*t) put(s, *t++);
}

static bool cons(const ks *s, int i) {
    char c = s->w[i];
    if (c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u') return false;
    if (c != 'y' || i == 0) return true;
    return !cons(s, i - 1); /* y after a consonant is a vowel */
}

static bool lookup(ks *s) {
    s->hit = dict_get(s->w, (size_t)s->len);
    return s->hit != NULL;
}

/* A lookup that remembers only non-exception hits, and answers the
 * remembered hit while there is one. */
static const ks_entry *in_dict(ks *s) {
    if (s->hit) return s->hit;
    const ks_entry *e = dict_get(s->w, (size_t)s->len);
    if (e && !e->exception) s->hit = e;
    return e;
}

/* Does the word end in t (n letters, n < k+1)? j: the letter before it. */
static bool ends(ks *s, const char *t, int n) {
    if (n > s->k) return false;
    s->j = s->k; /* KStemmer's long form moves j even when it fails */
    int r = s->len - n;
    for (int i = 0; i < n; i++)
        if (s->w[r + i] != t[i]) return false;
    s->j = r - 1;
    return true;
}
#define ENDS(s, lit) ends((s), (lit), (int)sizeof(lit) - 1)

/* The 2..4 letter forms compare at k, the long ones at the buffer's end. */
static bool ends_k(ks *s, const char *t, int n) {
    if (n > s->k) return false;
    for (int i = 0; i < n; i++)
        if (s->w[s->k - n + 1 + i] != t[i]) return false;
    s->j = s->k - n;
    return true;
}
#define ENDK(s, lit) ends_k((s), (lit), (int)sizeof(lit) - 1)

static bool double_c(const ks *s, int i) {
    if (i < 1) return false;
    if (s->w[i] != s->w[i - 1]) return false;
    return cons(s, i);
}

static bool vowel_in_stem(const ks *s) {
    for (int i = 0; i <= s->j; i++)
        if (!cons(s, i)) return true;
    return false;
}

static void plural(ks *s) {
    if (s->w[s->k] != 's') return;
    if (ENDK(s, "ies")) {
        set_len(s, s->j + 3); /* -ies -> -ie (calories -> calorie) */
        s->k--;
        if (lookup(s)) return;
        s->k++;
        put(s, 's');
        set_len(s, s->j + 1); /* -> -y */
        put(s, 'y');
        s->k = s->j + 1;
        lookup(s);
    } else if (ENDK(s, "es")) {
        set_len(s, s->j + 2); /* drop the s */
        s->k--;
        /* not after a double s: crosses is not crosse */
        bool try_e = s->j > 0 && !(s->w[s->j] == 's' && s->w[s->j - 1] == 's');
        if (try_e && lookup(s)) return;
        set_len(s, s->j + 1); /* drop -es */
        s->k--;
        if (lookup(s)) return;
        put(s, 'e'); /* keep the e by default */
        s->k++;
        if (!try_e) lookup(s);
    } else if (s->len > 3 && s->w[s->k - 1] != 's' && !ENDK(s, "ous")) {
        set_len(s, s->k);
        s->k--;
        lookup(s);
    }
}

static void past_tense(ks *s) {
    if (s->len <= 4) return; /* short words map directly (fled) */
    if (ENDK(s, "ied")) {
        set_len(s, s->j + 3);
        s->k--;
        if (lookup(s)) return; /* died -> die */
        s->k++;
        put(s, 'd');
        set_len(s, s->j + 1);
        put(s, 'y');
        s->k = s->j + 1;
        lookup(s);
        return;
    }
    if (ENDK(s, "ed") && vowel_in_stem(s)) { /* no vowel: an acronym */
        set_len(s, s->j + 2); /* root ending in e? */
        s->k = s->j + 1;
        const ks_entry *e = in_dict(s);
        if (e && !e->exception) return;
        set_len(s, s->j + 1); /* drop -ed */
        s->k = s->j;
        if (lookup(s)) return;
        if (double_c(s, s->k)) {
            set_len(s, s->k);
            s->k--;
            if (lookup(s)) return;
            put(s, s->w[s->k]); /* default: keep it doubled */
            s->k++;
            lookup(s);
            return;
        }
        if (s->w[0] == 'u' && s->w[1] == 'n') { /* un-: leave the word */
            put(s, 'e');
            put(s, 'd');
            s->k += 2;
            return;
        }
        set_len(s, s->j + 1); /* default: end in e (microcoded) */
        put(s, 'e');
        s->k = s->j + 1;
    }
}

static void aspect(ks *s) {
    if (s->len <= 5) return; /* short words map directly (aging) */
    if (!(ENDK(s, "ing") && vowel_in_stem(s))) return;
    s->w[s->j + 1] = 'e'; /* stem + e? */
    set_len(s, s->j + 2);
    s->k = s->j + 1;
    const ks_entry *e = in_dict(s);
    if (e && !e->exception) return;
    set_len(s, s->k); /* the bare stem */
    s->k--;
    if (lookup(s)) return;
    if (double_c(s, s->k)) {
        s->k--;
        set_len(s, s->k + 1);
        if (lookup(s)) return;
        put(s, s->w[s->k]); /* default: keep it doubled */
        s->k++;
        lookup(s);
        return;
    }
    if (s->j > 0 && cons(s, s->j) && cons(s, s->j - 1)) { /* two consonants: no e */
        s->k = s->j;
        set_len(s, s->k + 1);
        return;
    }
    set_len(s, s->j + 1); /* default: add e */
    put(s, 'e');
    s->k = s->j + 1;
}

static void ity(ks *s) {
    int old_k = s->k;
    if (!ENDK(s, "ity")) return;
    set_len(s, s->j + 1);
    s->k = s->j;
    if (lookup(s)) return;
    put(s, 'e');
    s->k = s->j + 1;
    if (lookup(s)) return;
    s->w[s->j + 1] = 'i';
    add(s, "ty");
    s->k = old_k;
    int j = s->j;
    if (j > 0 && s->w[j - 1] == 'i' && s->w[j] == 'l') { /* -ility -> -le (-ble) */
        set_len(s, j - 1);
        add(s, "le");
        s->k = j;
        lookup(s);
        return;
    }
    if (j > 0 && s->w[j - 1] == 'i' && s->w[j] == 'v') { /* -ivity -> -ive */
        set_len(s, j + 1);
        put(s, 'e');
        s->k = j + 1;
        lookup(s);
        return;
    }
    if (j > 0 && s->w[j - 1] == 'a' && s->w[j] == 'l') { /* -ality -> -al */
        set_len(s, j + 1);
        s->k = j;
        lookup(s);
        return;
    }
    if (lookup(s)) return; /* the -ity word itself */
    set_len(s, j + 1);     /* default: drop -ity */
    s->k = j;
}

static void nce(ks *s) {
    int old_k = s->k;
    if (!ENDK(s, "nce")) return;
    char c = s->w[s->j];
    if (c != 'e' && c != 'a') return;
    set_len(s, s->j);
    put(s, 'e'); /* -ance -> -e */
    s->k = s->j;
    if (lookup(s)) return;
    set_len(s, s->j); /* drop -ance */
    s->k = s->j - 1;
    if (lookup(s)) return;
    put(s, c);
    add(s, "nce");
    s->k = old_k;
}

static void ness(ks *s) {
    if (!ENDK(s, "ness")) return;
    set_len(s, s->j + 1);
    s->k = s->j;
    if (s->w[s->j] == 'i') s->w[s->j] = 'y';
    lookup(s);
}

static void ism(ks *s) {
    if (!ENDK(s, "ism")) return;
    set_len(s, s->j + 1);
    s->k = s->j;
    lookup(s);
}

static void ment(ks *s) {
    int old_k = s->k;
    if (!ENDK(s, "ment")) return;
    set_len(s, s->j + 1);
    s->k = s->j;
    if (lookup(s)) return;
    add(s, "ment");
    s->k = old_k;
}

static void ize(ks *s) {
    int old_k = s->k;
    if (!ENDK(s, "ize")) return;
    int j = s->j;
    set_len(s, j + 1);
    s->k = j;
    if (lookup(s)) return;
    put(s, 'i');
    if (double_c(s, j)) {
        set_len(s, j);
        s->k = j - 1;
        if (lookup(s)) return;
        put(s, s->w[j - 1]);
    }
    set_len(s, j + 1);
    put(s, 'e');
    s->k = j + 1;
    if (lookup(s)) return;
    set_len(s, j + 1);
    add(s, "ize");
    s->k = old_k;
}

static void ncy(ks *s) {
    if (!ENDK(s, "ncy")) return;
    int j = s->j;
    if (s->w[j] != 'e' && s->w[j] != 'a') return;
    s->w[j + 2] = 't'; /* -ncy -> -nt */
    set_len(s, j + 3);
    s->k = j + 2;
    if (lookup(s)) return;
    s->w[j + 2] = 'c'; /* default: -nce */
    put(s, 'e');
    s->k = j + 3;
    lookup(s);
}

static void ble(ks *s) {
    int old_k = s->k;
    if (!ENDK(s, "ble")) return;
    int j = s->j;
    char c = s->w[j];
    if (c != 'a' && c != 'i') return;
    set_len(s, j);
    s->k = j - 1;
    if (lookup(s)) return;
    if (double_c(s, s->k)) {
        set_len(s, s->k);
        s->k--;
        if (lookup(s)) return;
        s->k++;
        put(s, s->w[s->k - 1]);
    }
    set_len(s, j);
    put(s, 'e');
    s->k = j;
    if (lookup(s)) return;
    set_len(s, j);
    add(s, "ate"); /* compensable -> compensate */
    s->k = j + 2;
    if (lookup(s)) return;
    set_len(s, j);
    put(s, c);
    add(s, "ble");
    s->k = old_k;
}

static void ic(ks *s) {
    if (!ENDK(s, "ic")) return;
    int j = s->j;
    set_len(s, j + 3);
    add(s, "al"); /* -ic -> -ical */
    s->k = j + 4;
    if (lookup(s)) return;
    s->w[j + 1] = 'y'; /* -> -y */
    set_len(s, j + 2);
    s->k = j + 1;
    if (lookup(s)) return;
    s->w[j + 1] = 'e'; /* -> -e */
    if (lookup(s)) return;
    set_len(s, j + 1); /* drop -ic */
    s->k = j;
    if (lookup(s)) return;
    add(s, "ic");
    s->k = j + 2;
}

static void ion(ks *s) {
    int old_k = s->k;
    if (!ENDK(s, "ion")) return;
    if (ENDS(s, "ization")) { /* always -ize */
        set_len(s, s->j + 3);
        put(s, 'e');
        s->k = s->j + 3;
        lookup(s);
        return;
    }
    if (ENDS(s, "ition")) {
        set_len(s, s->j + 1);
        put(s, 'e'); /* definition -> define */
        s->k = s->j + 1;
        if (lookup(s)) return;
        set_len(s, s->j + 1);
        add(s, "ition");
        s->k = old_k;
    } else if (ENDS(s, "ation")) {
        set_len(s, s->j + 3);
        put(s, 'e'); /* -ation -> -ate */
        s->k = s->j + 3;
        if (lookup(s)) return;
        set_len(s, s->j + 1);
        put(s, 'e'); /* -ation -> -e */
        s->k = s->j + 1;
        if (lookup(s)) return;
        set_len(s, s->j + 1); /* resignation -> resign */
        s->k = s->j;
        if (lookup(s)) return;
        set_len(s, s->j + 1);
        add(s, "ation");
        s->k = old_k;
    }
    if (ENDS(s, "ication")) {
        set_len(s, s->j + 1);
        put(s, 'y'); /* amplification -> amplify */
        s->k = s->j + 1;
        if (lookup(s)) return;
        set_len(s, s->j + 1);
        add(s, "ication");
        s->k = old_k;
    }
    s->j = s->k - 3;
    set_len(s, s->j + 1);
    put(s, 'e'); /* -ion -> -e */
    s->k = s->j + 1;
    if (lookup(s)) return;
    set_len(s, s->j + 1); /* drop -ion */
    s->k = s->j;
    if (lookup(s)) return;
    set_len(s, s->j + 1);
    add(s, "ion");
    s->k = old_k;
}

static void er_or(ks *s) {
    int old_k = s->k;
    if (s->w[s->k] != 'r') return;
    if (ENDK(s, "izer")) { /* always -ize */
        set_len(s, s->j + 4);
        s->k = s->j + 3;
        lookup(s);
        return;
    }
    if (!(ENDK(s, "er") || ENDK(s, "or"))) return;
    int j = s->j;
    char c = s->w[j + 1];
    if (double_c(s, j)) {
        set_len(s, j);
        s->k = j - 1;
        if (lookup(s)) return;
        put(s, s->w[j - 1]);
    }
    if (s->w[j] == 'i') { /* -ier -> -y */
        s->w[j] = 'y';
        set_len(s, j + 1);
        s->k = j;
        if (lookup(s)) return;
        s->w[j] = 'i';
        put(s, 'e');
    }
    if (s->w[j] == 'e') { /* -eer */
        set_len(s, j);
        s->k = j - 1;
        if (lookup(s)) return;
        put(s, 'e');
    }
    set_len(s, j + 2); /* drop the r */
    s->k = j + 1;
    if (lookup(s)) return;
    set_len(s, j + 1); /* drop -er/-or */
    s->k = j;
    if (lookup(s)) return;
    put(s, 'e'); /* -or -> -e */
    s->k = j + 1;
    if (lookup(s)) return;
    set_len(s, j + 1);
    put(s, c);
    put(s, 'r');
    s->k = old_k;
}

static void ly(ks *s) {
    int old_k = s->k;
    if (!ENDK(s, "ly")) return;
    int j = s->j;
    s->w[j + 2] = 'e'; /* -ly -> -le */
    if (lookup(s)) return;
    s->w[j + 2] = 'y';
    set_len(s, j + 1); /* drop -ly */
    s->k = j;
    if (lookup(s)) return;
    if (j > 0 && s->w[j - 1] == 'a' && s->w[j] == 'l') return; /* -ally -> -al */
    add(s, "ly");
    s->k = old_k;
    if (j > 0 && s->w[j - 1] == 'a' && s->w[j] == 'b') { /* -ably -> -able */
        s->w[j + 2] = 'e';
        s->k = j + 2;
        return;
    }
    if (s->w[j] == 'i') { /* militarily -> military */
        set_len(s, j);
        put(s, 'y');
        s->k = j;
        if (lookup(s)) return;
        set_len(s, j);
        add(s, "ily");
        s->k = old_k;
    }
    set_len(s, j + 1); /* default: drop -ly */
    s->k = j;
}

static void al(ks *s) {
    int old_k = s->k;
    if (s->len < 4) return;
    if (!ENDK(s, "al")) return;
    int j = s->j;
    set_len(s, j + 1);
    s->k = j;
    if (lookup(s)) return;
    if (double_c(s, j)) {
        set_len(s, j);
        s->k = j - 1;
        if (lookup(s)) return;
        put(s, s->w[j - 1]);
    }
    set_len(s, j + 1);
    put(s, 'e'); /* -al -> -e */
    s->k = j + 1;
    if (lookup(s)) return;
    set_len(s, j + 1);
    add(s, "um"); /* optimal -> optimum */
    s->k = j + 2;
    if (lookup(s)) return;
    set_len(s, j + 1);
    add(s, "al");
    s->k = old_k;
    if (j > 0 && s->w[j - 1] == 'i' && s->w[j] == 'c') {
        set_len(s, j - 1); /* drop -ical */
        s->k = j - 2;
        if (lookup(s)) return;
        set_len(s, j - 1);
        put(s, 'y'); /* -ical -> -y */
        s->k = j - 1;
        if (lookup(s)) return;
        set_len(s, j - 1);
        add(s, "ic"); /* default: -ic */
        s->k = j;
        lookup(s);
        return;
    }
    if (s->w[j] == 'i') { /* drop -ial */
        set_len(s, j);
        s->k = j - 1;
        if (lookup(s)) return;
        add(s, "ial");
        s->k = old_k;
        lookup(s);
    }
}

static void ive(ks *s) {
    int old_k = s->k;
    if (!ENDK(s, "ive")) return;
    int j = s->j;
    set_len(s, j + 1);
    s->k = j;
    if (lookup(s)) return;
    put(s, 'e');
    s->k = j + 1;
    if (lookup(s)) return;
    set_len(s, j + 1);
    add(s, "ive");
    if (j > 0 && s->w[j - 1] == 'a' && s->w[j] == 't') {
        s->w[j - 1] = 'e'; /* determinative -> determine */
        set_len(s, j);
        s->k = j - 1;
        if (lookup(s)) return;
        set_len(s, j - 1); /* drop -ative */
        if (lookup(s)) return;
        add(s, "ative");
        s->k = old_k;
    }
    s->w[j + 2] = 'o'; /* injunctive -> injunction */
    s->w[j + 3] = 'n';
    if (lookup(s)) return;
    s->w[j + 2] = 'v';
    s->w[j + 3] = 'e';
    s->k = old_k;
}

/* Stems term (n bytes) into out; returns the stem's length, or -1 when the
 * term stays as it is. */
static int kstem(const char *term, size_t n, char *out) {
    if (n < 3 || n >= KS_MAX) return -1;
    const ks_entry *e = dict_get(term, n);
    if (e) {
        if (!e->root) return -1;
        memcpy(out, e->root, e->root_len);
        return e->root_len;
    }
    ks s;
    for (size_t i = 0; i < n; i++) {
        if (term[i] < 'a' || term[i] > 'z') return -1;
        s.w[i] = term[i];
    }
    s.len = (int)n;
    s.k = (int)n - 1;
    s.j = 0;
    s.hit = NULL;
    static void (*const steps[])(ks *) = {plural, past_tense, aspect, ity, ness, ion, er_or, ly, al,
                                          NULL, ive, ize, ment, ble, ism, ic, ncy, nce};
    for (size_t i = 0; i < TV_ARRAY_LEN(steps); i++) {
        if (!steps[i]) { /* between -al and -ive: a remembering lookup */
            in_dict(&s);
            continue;
        }
        steps[i](&s);
        if (s.hit) break;
    }
    if (s.hit && s.hit->root) {
        memcpy(out, s.hit->root, s.hit->root_len);
        return s.hit->root_len;
    }
    memcpy(out, s.w, (size_t)s.len);
    return s.len;
}

/* ------------------------------------------------------------- the filter */

static tv_status kstem_build(tv_comp *c, const void **out, tv_error *err) {
    (void)c;
    (void)out;
    pthread_mutex_lock(&dict_mu); /* a failed build (out of memory) is retried */
    if (!dict) dict_build();
    bool ok = dict != NULL;
    pthread_mutex_unlock(&dict_mu);
    return ok ? TROVE_OK : TROVE_ENOMEM;
}

static tv_status kstem_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    (void)cfg;
    char buf[KS_MAX + 16];
    for (size_t i = 0; i < v->len; i++) {
        tv_token *t = &v->items[i];
        if (t->flags & TV_TOKF_KEYWORD) continue;
        int n = kstem(t->term, t->term_len, buf);
        if (n < 0 || ((size_t)n == t->term_len && memcmp(buf, t->term, (size_t)n) == 0)) continue;
        char *o = tv_arena_alloc(a, (size_t)n + 1);
        if (!o) return TROVE_ENOMEM;
        memcpy(o, buf, (size_t)n);
        o[n] = 0;
        t->term = o;
        t->term_len = (uint32_t)n;
    }
    return TROVE_OK;
}

const tv_filter_type tv_tf_kstem = {"kstem", kstem_build, kstem_apply};
