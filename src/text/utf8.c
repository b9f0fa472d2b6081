/*
 * utf8.c — UTF-8 decoding and encoding, UTF-16 lengths, Java-style case
 * mapping over UTF-8, and the ASCII-folding lookup.
 *
 * Decoding follows the WHATWG/Unicode "maximal subpart" practice in its
 * simplest form: any byte that does not start a well-formed sequence
 * (overlongs, surrogates, > U+10FFFF, truncated) decodes as U+FFFD and
 * consumes exactly one byte, so every caller advances and no input can make
 * a scanner loop. Offsets therefore always land on byte positions of the
 * input. An alternative, rejecting invalid input up front, was rejected:
 * documents arrive from JSON already validated, and the fuzzers feed raw
 * bytes that must never crash a tokenizer.
 *
 * Case mapping uses the generated simple mappings of UnicodeData.txt, which
 * is exactly what Java's Character.toLowerCase/toUpperCase(int) return (so
 * 'İ' lower-cases to 'i', 'ß' has no simple upper-case).
 */
#include "text/text.h"
#include "text/unicode.h"

size_t tv_utf8_decode(const uint8_t *p, const uint8_t *end, uint32_t *cp) {
    uint32_t c = p[0];
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    size_t avail = (size_t)(end - p);
    if (c >= 0xC2 && c <= 0xDF) {
        if (avail >= 2 && (p[1] & 0xC0) == 0x80) {
            *cp = ((c & 0x1F) << 6) | (p[1] & 0x3F);
            return 2;
        }
    } else if (c >= 0xE0 && c <= 0xEF) {
        if (avail >= 3 && (p[1] & 0xC0) == 0x80 && (p[2] & 0xC0) == 0x80) {
            uint32_t v = ((c & 0x0F) << 12) | ((uint32_t)(p[1] & 0x3F) << 6) | (p[2] & 0x3F);
            if (v >= 0x800 && (v < 0xD800 || v > 0xDFFF)) {
                *cp = v;
                return 3;
            }
        }
    } else if (c >= 0xF0 && c <= 0xF4) {
        if (avail >= 4 && (p[1] & 0xC0) == 0x80 && (p[2] & 0xC0) == 0x80 && (p[3] & 0xC0) == 0x80) {
            uint32_t v = ((c & 0x07) << 18) | ((uint32_t)(p[1] & 0x3F) << 12) |
                         ((uint32_t)(p[2] & 0x3F) << 6) | (p[3] & 0x3F);
            if (v >= 0x10000 && v <= 0x10FFFF) {
                *cp = v;
                return 4;
            }
        }
    }
    *cp = 0xFFFD;
    return 1;
}

size_t tv_utf8_encode(uint32_t cp, uint8_t *out) {
    if (cp < 0x80) {
        out[0] = (uint8_t)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (uint8_t)(0xC0 | (cp >> 6));
        out[1] = (uint8_t)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (uint8_t)(0xE0 | (cp >> 12));
        out[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (uint8_t)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (uint8_t)(0xF0 | (cp >> 18));
    out[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (uint8_t)(0x80 | (cp & 0x3F));
    return 4;
}

bool tv_utf8_valid(const void *p, size_t n) {
    const uint8_t *s = p, *end = s + n;
    while (s < end) {
        if (*s < 0x80) {
            s++;
            continue;
        }
        uint32_t cp;
        size_t k = tv_utf8_decode(s, end, &cp);
        if (cp == 0xFFFD && k == 1) return false;
        s += k;
    }
    return true;
}

size_t tv_utf16_len(const void *p, size_t n) {
    const uint8_t *s = p, *end = s + n;
    size_t units = 0;
    while (s < end) {
        if (*s < 0x80) {
            s++;
            units++;
            continue;
        }
        uint32_t cp;
        s += tv_utf8_decode(s, end, &cp);
        units += cp >= 0x10000 ? 2 : 1;
    }
    return units;
}

static void map_case(const char *str, size_t n, tv_buf *out, bool lower) {
    const uint8_t *s = (const uint8_t *)str, *end = s + n;
    if (!tv_buf_reserve(out, n)) return;
    while (s < end) {
        uint32_t c = *s;
        if (c < 0x80) {
            if (lower && c >= 'A' && c <= 'Z') c += 32;
            else if (!lower && c >= 'a' && c <= 'z') c -= 32;
            tv_buf_putc(out, (char)c);
            s++;
            continue;
        }
        uint32_t cp;
        s += tv_utf8_decode(s, end, &cp);
        cp = lower ? tv_uc_lower(cp) : tv_uc_upper(cp);
        uint8_t tmp[4];
        tv_buf_append(out, tmp, tv_utf8_encode(cp, tmp));
    }
}

void tv_utf8_lower(const char *s, size_t n, tv_buf *out) { map_case(s, n, out, true); }
void tv_utf8_upper(const char *s, size_t n, tv_buf *out) { map_case(s, n, out, false); }

const char *tv_uc_ascii_fold(uint32_t cp, size_t *len) {
    size_t lo = 0, hi = tv_uc_fold_count;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        uint32_t m = tv_uc_fold_table[mid].cp;
        if (m == cp) {
            *len = tv_uc_fold_table[mid].len;
            return tv_uc_fold_pool + tv_uc_fold_table[mid].off;
        }
        if (m < cp) lo = mid + 1;
        else hi = mid;
    }
    return NULL;
}
