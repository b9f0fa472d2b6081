/*
 * cf_kuromoji.c — the `kuromoji_iteration_mark` char filter (Lucene's
 * JapaneseIterationMarkCharFilter, OpenSearch's
 * KuromojiIterationMarkCharFilterFactory: normalize_kanji and
 * normalize_kana, both default true).
 *
 * Iteration marks are replaced by the character they repeat: 々 (kanji),
 * ゝ ゞ (hiragana) and ヽ ヾ (katakana). A run of N marks repeats the N
 * characters before it, one to one; ゝ/ヽ give the unvoiced form, ゞ/ヾ the
 * voiced form where one exists (か→が ... ほ→ぼ, likewise katakana). A span
 * never reaches back over a previous span, a surrogate pair or a full stop
 * 。, and a mark right after a span stays as it is. Walks UTF-16 units as
 * Lucene does; the UTF-16 length never changes, but a mark repeating an
 * ASCII character shrinks in UTF-8, so byte offsets are corrected
 * (tv_offmap). Rejected: Lucene's rolling buffer (the whole text is here).
 */
#include <string.h>

#include "text/text_int.h"

typedef struct im_cfg {
    bool kanji, kana;
} im_cfg;

static const im_cfg im_default = {true, true};

static tv_status im_build(tv_comp *c, const void **cfg, tv_error *err) {
    if (!tv_ja_available())
        return tv_error_set(err, TROVE_EUNSUPPORTED, "char_filter [kuromoji_iteration_mark] is not supported");
    im_cfg *k = tv_comp_alloc(c, sizeof *k);
    if (!k) return TROVE_ENOMEM;
    tv_status st = tv_comp_bool(c, "normalize_kanji", true, &k->kanji, err);
    if (!st) st = tv_comp_bool(c, "normalize_kana", true, &k->kana, err);
    if (st) return st;
    *cfg = k;
    return TROVE_OK;
}

/* The voiced (dakuten) form of hiragana か..ほ (katakana: shifted by
 * カ - か), the character itself where there is none. Index c - か. */
static const uint16_t h2d[50] = {
    0x304c, 0x304c, 0x304e, 0x304e, 0x3050, 0x3050, 0x3052, 0x3052, 0x3054, 0x3054,
    0x3056, 0x3056, 0x3058, 0x3058, 0x305a, 0x305a, 0x305c, 0x305c, 0x305e, 0x305e,
    0x3060, 0x3060, 0x3062, 0x3062, 0x3063, 0x3065, 0x3065, 0x3067, 0x3067, 0x3069,
    0x3069, 0x306a, 0x306b, 0x306c, 0x306d, 0x306e, 0x3070, 0x3070, 0x3071, 0x3073,
    0x3073, 0x3074, 0x3076, 0x3076, 0x3077, 0x3079, 0x3079, 0x307a, 0x307c, 0x307c};

static uint16_t dakuten(uint16_t c, uint16_t base) {
    if (c < base || c >= base + 50) return c;
    return (uint16_t)(h2d[c - base] + (base - 0x304b));
}
static bool is_dakuten(uint16_t c, uint16_t base) {
    return c >= base && c < base + 50 && dakuten(c, base) == c;
}

static bool is_mark(const im_cfg *k, uint16_t c) {
    return (k->kanji && c == 0x3005) ||
           (k->kana && (c == 0x309D || c == 0x309E || c == 0x30FD || c == 0x30FE));
}

static uint16_t normalize(const im_cfg *k, uint16_t c, uint16_t m) {
    if (k->kana && (m == 0x309D || m == 0x309E))
        return m == 0x309D ? (is_dakuten(c, 0x304b) ? (uint16_t)(c - 1) : c) : dakuten(c, 0x304b);
    if (k->kana && (m == 0x30FD || m == 0x30FE))
        return m == 0x30FD ? (is_dakuten(c, 0x30ab) ? (uint16_t)(c - 1) : c) : dakuten(c, 0x30ab);
    return c;
}

static tv_status im_run(tv_arena *a, const void *cfg, const char *in, size_t len, tv_cfout *out) {
    const im_cfg *k = cfg ? cfg : &im_default;
    /* UTF-16 units and the byte span of each */
    uint16_t *u = tv_arena_alloc(a, (len + 1) * sizeof *u);
    uint32_t *bo = tv_arena_alloc(a, (len + 2) * sizeof *bo);
    char *o = tv_arena_alloc(a, len * 3 + 1); /* U+FFFD for invalid bytes */
    if (!u || !bo || !o) return TROVE_ENOMEM;
    size_t n = 0;
    const uint8_t *p = (const uint8_t *)in, *e = p + len;
    while (p < e) {
        uint32_t cp, b = (uint32_t)(p - (const uint8_t *)in);
        p += tv_utf8_decode(p, e, &cp);
        if (cp >= 0x10000) {
            cp -= 0x10000;
            bo[n] = b;
            u[n++] = (uint16_t)(0xD800 + (cp >> 10));
            bo[n] = b;
            u[n++] = (uint16_t)(0xDC00 + (cp & 0x3FF));
        } else {
            bo[n] = b;
            u[n++] = (uint16_t)cp;
        }
    }
    bo[n] = (uint32_t)len;
    memset(out, 0, sizeof *out);
    size_t w = 0;
    int64_t span = 0, span_end = 0;
    for (size_t i = 0; i < n; i++) {
        uint16_t c = u[i];
        int64_t pos = (int64_t)i;
        if (c >= 0xD800 && c < 0xE000) span_end = pos + 1;
        if (c == 0x3002) span_end = pos + 1; /* 。 */
        uint16_t r = c;
        if (is_mark(k, c)) {
            if (pos < span_end) {
                r = normalize(k, u[pos - span], c);
            } else if (pos == span_end) {
                span_end++;
            } else {
                int64_t s = 0;
                for (size_t j = i; j < n && is_mark(k, u[j]); j++) s++;
                if (pos - s < span_end) s = pos - span_end;
                span = s;
                span_end = pos + s;
                r = normalize(k, u[pos - span], c);
            }
        }
        /* copy the code point's bytes, or encode the replacement */
        size_t b0 = bo[i], b1 = bo[i + 1];
        if (c >= 0xD800 && c < 0xDC00 && i + 1 < n && bo[i + 1] == bo[i])
            continue; /* the low half copies the pair */
        if (r == c) {
            memcpy(o + w, in + b0, b1 - b0);
            w += b1 - b0;
        } else {
            size_t k2 = tv_utf8_encode(r, (uint8_t *)o + w);
            w += k2;
            if (k2 != b1 - b0 &&
                tv_offmap_add(a, &out->map, (uint32_t)w, (int32_t)((int64_t)b1 - (int64_t)w)))
                return TROVE_ENOMEM;
        }
    }
    o[w] = 0;
    out->text = o;
    out->len = w;
    return TROVE_OK;
}

const tv_charfilter_type tv_cf_kuromoji_iteration_mark = {"kuromoji_iteration_mark", im_build, im_run};
