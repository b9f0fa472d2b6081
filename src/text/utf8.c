/*
 * utf8.c — Java-style case mapping over UTF-8 and the ASCII-folding
 * lookup (the codec itself is util's).
 *
 * Case mapping uses the generated simple mappings of UnicodeData.txt, which
 * is exactly what Java's Character.toLowerCase/toUpperCase(int) return (so
 * 'İ' lower-cases to 'i', 'ß' has no simple upper-case).
 */
#include "text/text.h"
#include "text/unicode.h"

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
