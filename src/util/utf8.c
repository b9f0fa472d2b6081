/*
 * utf8.c — UTF-8 decoding and encoding, well-formedness and UTF-16
 * lengths: the one codec every layer uses (the JSON reader's \u escapes,
 * the analyzers, the automata, Java's String.hashCode).
 *
 * Decoding follows the WHATWG/Unicode "maximal subpart" practice in its
 * simplest form: any byte that does not start a well-formed sequence
 * (overlongs, surrogates, > U+10FFFF, truncated) decodes as U+FFFD and
 * consumes exactly one byte, so every caller advances and no input can make
 * a scanner loop. Offsets therefore always land on byte positions of the
 * input. An alternative, rejecting invalid input up front, was rejected:
 * documents arrive from JSON already validated, and the fuzzers feed raw
 * bytes that must never crash a tokenizer.
 */
#include "util.h"

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

