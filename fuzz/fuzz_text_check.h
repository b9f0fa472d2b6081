/*
 * fuzz_text_check.h — the token-stream invariants the text fuzz targets
 * check, as Lucene's IndexWriter would: offsets inside the input with
 * start <= end and starts non-decreasing, UTF-16 offsets equal to the
 * UTF-16 length of the byte prefix, positions non-decreasing from
 * first_pos, a term wherever term_len > 0, and (max16 > 0) no token longer
 * than max16 UTF-16 units. Aborts on a violation; returns the stream.
 */
#ifndef TROVE_FUZZ_TEXT_CHECK_H
#define TROVE_FUZZ_TEXT_CHECK_H

#include <stdlib.h>

#include "text/text.h"

static inline tv_tokens fuzz_text_check(const tv_analyzer *an, tv_arena *a, const char *text,
                                        size_t len, uint32_t first_pos, uint32_t max16) {
    tv_tokens t;
    if (tv_analyze(an, a, text, len, first_pos, &t) != TROVE_OK) abort();
    uint32_t last_start = 0, last_pos = first_pos;
    for (size_t i = 0; i < t.len; i++) {
        const tv_token *k = &t.items[i];
        if (k->start > k->end || k->end > len) abort();
        if (k->start < last_start) abort();
        if (k->position < last_pos) abort();
        if (k->start16 != tv_utf16_len(text, k->start) || k->end16 != tv_utf16_len(text, k->end)) abort();
        if (max16 && k->end16 - k->start16 > max16) abort();
        if (k->term_len && !k->term) abort();
        last_start = k->start;
        last_pos = k->position;
    }
    return t;
}

#endif
