/*
 * component.c — reading one analysis component's settings (tv_comp_*):
 * strings, numbers, booleans, lists and word sets, as OpenSearch's
 * Settings and Analysis.parseWords read them, over the flattened
 * "analysis" settings (settings_json.c), and the registry-owned memory a
 * component keeps.
 *
 * Lookups scan the flattened list (a few dozen entries per index); rejected:
 * a per-component hash, which would cost more to build than the scans it
 * saves for settings read once per index creation.
 */
#include <stdio.h>
#include <stdlib.h>

#include "text/settings_json.h"
#include "text/text_int.h"

static const tv_sjson_entry *setting(const tv_comp *c, const char *key) {
    if (!c->all) return NULL;
    size_t kl = strlen(key), kind_len = strlen(c->kind);
    for (size_t i = 0; i < c->all->len; i++) {
        const tv_sjson_entry *e = &c->all->items[i];
        if (e->key_len != c->prefix_len + kl) continue;
        if (memcmp(e->key, c->kind, kind_len) != 0 || e->key[kind_len] != '.') continue;
        if (memcmp(e->key + kind_len + 1, c->name, c->name_len) != 0) continue;
        if (e->key[kind_len + 1 + c->name_len] != '.') continue;
        if (memcmp(e->key + c->prefix_len, key, kl) == 0) return e;
    }
    return NULL;
}

const char *tv_comp_name(const tv_comp *c) { return c->name; }

bool tv_comp_has(const tv_comp *c, const char *key) { return setting(c, key) != NULL; }

const char *tv_comp_str(const tv_comp *c, const char *key, size_t *len) {
    const tv_sjson_entry *e = setting(c, key);
    if (!e || e->is_array || e->nvals != 1 || e->vals[0].is_null) return NULL;
    *len = e->vals[0].len;
    return e->vals[0].s;
}

tv_status tv_comp_int(const tv_comp *c, const char *key, int64_t def, int64_t *out,
                      tv_error *err) {
    size_t n;
    const char *s = tv_comp_str(c, key, &n);
    if (!s) {
        *out = def;
        return TROVE_OK;
    }
    if (!tv_parse_i64(s, n, out) || *out < INT32_MIN || *out > INT32_MAX)
        return tv_error_set(err, TROVE_EARG, "Failed to parse value [%s] for setting [%s]", s, key);
    return TROVE_OK;
}

tv_status tv_comp_double(const tv_comp *c, const char *key, double def, double *out,
                         tv_error *err) {
    size_t n;
    const char *s = tv_comp_str(c, key, &n);
    if (!s) {
        *out = def;
        return TROVE_OK;
    }
    char *end = NULL;
    *out = strtod(s, &end);
    if (n == 0 || end != s + n)
        return tv_error_set(err, TROVE_EARG, "Failed to parse value [%s] for setting [%s]", s, key);
    return TROVE_OK;
}

tv_status tv_comp_bool(const tv_comp *c, const char *key, bool def, bool *out, tv_error *err) {
    size_t n;
    const char *s = tv_comp_str(c, key, &n);
    if (!s) *out = def;
    else if (tv_streq(s, n, "true")) *out = true;
    else if (tv_streq(s, n, "false")) *out = false;
    else
        return tv_error_set(err, TROVE_EARG,
                            "Failed to parse value [%s] as only [true] or [false] are allowed.", s);
    return TROVE_OK;
}

void tv_comp_list(const tv_comp *c, const char *key, const char *const **vals,
                  const size_t **lens, size_t *n) {
    *vals = NULL;
    *lens = NULL;
    *n = 0;
    const tv_sjson_entry *e = setting(c, key);
    if (!e || e->nvals == 0 || (!e->is_array && e->vals[0].is_null)) return;
    /* the flattened values keep (s, len) pairs; hand out parallel arrays in
     * the registry's memory (small, and read once) */
    const char **v = tv_comp_alloc((tv_comp *)c, e->nvals * sizeof *v);
    size_t *l = tv_comp_alloc((tv_comp *)c, e->nvals * sizeof *l);
    if (!v || !l) return;
    for (size_t i = 0; i < e->nvals; i++) {
        v[i] = e->vals[i].s;
        l[i] = e->vals[i].len;
    }
    *vals = v;
    *lens = l;
    *n = e->nvals;
}

void tv_comp_list_csv(const tv_comp *c, const char *key, const char *const **vals,
                      const size_t **lens, size_t *n) {
    size_t sl;
    const char *s = tv_comp_str(c, key, &sl);
    if (!s) {
        tv_comp_list(c, key, vals, lens, n);
        return;
    }
    *vals = NULL;
    *lens = NULL;
    *n = 0;
    size_t cnt = 1;
    for (size_t i = 0; i < sl; i++) cnt += s[i] == ',';
    const char **v = tv_comp_alloc((tv_comp *)c, cnt * sizeof *v);
    size_t *l = tv_comp_alloc((tv_comp *)c, cnt * sizeof *l);
    if (!v || !l) return;
    size_t m = 0, keep = 0, b = 0;
    for (size_t i = 0; sl && i <= sl; i++) {
        if (i < sl && s[i] != ',') continue;
        size_t x = b, y = i;
        if (y > x) keep = m + 1; /* String.split drops trailing empty pieces */
        while (x < y && (unsigned char)s[x] <= ' ') x++;
        while (y > x && (unsigned char)s[y - 1] <= ' ') y--;
        v[m] = s + x;
        l[m++] = y - x;
        b = i + 1;
    }
    *vals = v;
    *lens = l;
    *n = keep;
}

void *tv_comp_alloc(tv_comp *c, size_t n) { return tv_analysis_alloc(c->reg, n ? n : 1); }

tv_status tv_comp_on_free(tv_comp *c, void (*fn)(void *), void *p) {
    return tv_analysis_on_free(c->reg, fn, p);
}

char *tv_comp_strdup(tv_comp *c, const char *s, size_t n) {
    char *d = tv_comp_alloc(c, n + 1);
    if (!d) return NULL;
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}

tv_status tv_comp_termset(tv_comp *c, const char *const *words, const size_t *lens, size_t n,
                          bool ignore_case, const tv_termset **out) {
    tv_termset *ts = tv_termset_new(words, lens, n, ignore_case);
    if (!ts) return TROVE_ENOMEM;
    if (tv_analysis_keep_set(c->reg, ts)) {
        tv_termset_free(ts);
        return TROVE_ENOMEM;
    }
    *out = ts;
    return TROVE_OK;
}

/* A static set's words with their lengths, lower-cased into a new set. */
static tv_status set_copy(tv_comp *c, const tv_termset *s, bool ignore_case,
                          const tv_termset **out) {
    size_t *lens = tv_comp_alloc(c, (s->n ? s->n : 1) * sizeof *lens);
    if (!lens) return TROVE_ENOMEM;
    for (size_t i = 0; i < s->n; i++) lens[i] = s->lens[i];
    return tv_comp_termset(c, s->words, lens, s->n, ignore_case, out);
}

tv_status tv_comp_words(tv_comp *c, const char *key, const tv_termset *def, bool ignore_case,
                        const tv_termset **out, tv_error *err) {
    char pkey[64];
    snprintf(pkey, sizeof pkey, "%s_path", key);
    if (setting(c, pkey))
        return tv_error_set(err, TROVE_EUNSUPPORTED, "[%s] is not supported for [%s]", pkey,
                            c->name);
    const tv_sjson_entry *e = setting(c, key);
    if (!e || e->nvals == 0 || (!e->is_array && e->vals[0].is_null)) {
        if (!def || !ignore_case || def->ignore_case) {
            *out = def;
            return TROVE_OK;
        }
        return set_copy(c, def, true, out);
    }
    size_t n = 0;
    const char **words = NULL;
    size_t *lens = NULL;
    if (!e->is_array) {
        const char *s = e->vals[0].s;
        size_t sl = e->vals[0].len;
        if (sl > 1 && s[0] == '_' && s[sl - 1] == '_') {
            if (tv_streq(s, sl, "_none_")) return tv_comp_termset(c, NULL, NULL, 0, false, out);
            const tv_termset *named = tv_catalog_words(s, sl);
            if (!named)
                return tv_error_set(err, TROVE_EUNSUPPORTED, "%s [%s] are not supported",
                                    tv_streq(key, strlen(key), "stopwords") ? "stop words" : key, s);
            if (!ignore_case || named->ignore_case) {
                *out = named;
                return TROVE_OK;
            }
            return set_copy(c, named, true, out);
        }
        /* comma-separated, each word trimmed */
        size_t cnt = 1;
        for (size_t i = 0; i < sl; i++) cnt += s[i] == ',';
        words = tv_comp_alloc(c, cnt * sizeof *words);
        lens = tv_comp_alloc(c, cnt * sizeof *lens);
        if (!words || !lens) return TROVE_ENOMEM;
        size_t b = 0;
        for (size_t i = 0; i <= sl; i++) {
            if (i == sl || s[i] == ',') {
                size_t x = b, y = i;
                while (x < y && s[x] == ' ') x++;
                while (y > x && s[y - 1] == ' ') y--;
                if (y > x) {
                    words[n] = s + x;
                    lens[n++] = y - x;
                }
                b = i + 1;
            }
        }
    } else {
        /* a list: named sets inside it are expanded, as resolveNamedWords does */
        size_t total = 0;
        for (size_t i = 0; i < e->nvals; i++) {
            const tv_termset *named = tv_catalog_words(e->vals[i].s, e->vals[i].len);
            total += named ? named->n : 1;
        }
        words = tv_comp_alloc(c, (total + 1) * sizeof *words);
        lens = tv_comp_alloc(c, (total + 1) * sizeof *lens);
        if (!words || !lens) return TROVE_ENOMEM;
        for (size_t i = 0; i < e->nvals; i++) {
            const tv_termset *named = tv_catalog_words(e->vals[i].s, e->vals[i].len);
            if (!named) {
                words[n] = e->vals[i].s;
                lens[n++] = e->vals[i].len;
                continue;
            }
            for (size_t k = 0; k < named->n; k++) {
                words[n] = named->words[k];
                lens[n++] = named->lens[k];
            }
        }
    }
    return tv_comp_termset(c, words, lens, n, ignore_case, out);
}
