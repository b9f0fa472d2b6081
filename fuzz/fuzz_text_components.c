/*
 * fuzz_text_components.c — random bytes as text through analyzers made of
 * the catalog's parsers and graph filters: html_strip (an HTML scanner),
 * uax_url_email and classic (URL, e-mail and acronym grammars), the word
 * delimiter, shingle and flatten_graph filters, kstem, hunspell, German's
 * Snowball prelude, ICU's tokenizer and folding, and kuromoji's number and
 * romaji filters. Checks, as Lucene's IndexWriter would: offsets inside
 * the input with start <= end and starts non-decreasing, UTF-16 offsets
 * equal to the UTF-16 length of the byte prefix, positions non-decreasing.
 * Components a build lacks (ICU, MeCab, a Hunspell dictionary) are left
 * out: the registry is made of the analyzers that build. The checks are
 * fuzz_text_check.h's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_text_check.h"

static const char *const DEFS[] = {
    "{\"char_filter\":{\"h\":{\"type\":\"html_strip\",\"escaped_tags\":[\"b\"]}},"
    "\"filter\":{\"w\":{\"type\":\"word_delimiter_graph\",\"preserve_original\":true,"
    "\"catenate_all\":true}},"
    "\"analyzer\":{\"a\":{\"char_filter\":[\"h\"],\"tokenizer\":\"uax_url_email\","
    "\"filter\":[\"w\",\"flatten_graph\",\"lowercase\"]}}}",
    "{\"filter\":{\"s\":{\"type\":\"shingle\",\"max_shingle_size\":3,\"filler_token\":\"_\"},"
    "\"d\":{\"type\":\"word_delimiter\",\"catenate_words\":true,\"stem_english_possessive\":true}},"
    "\"analyzer\":{\"a\":{\"tokenizer\":\"classic\",\"filter\":[\"classic\",\"d\",\"stop\",\"s\"]}}}",
    "{\"filter\":{\"g\":{\"type\":\"snowball\",\"language\":\"German\"},"
    "\"h\":{\"type\":\"hunspell\",\"locale\":\"en_US\"}},"
    "\"analyzer\":{\"a\":{\"tokenizer\":\"standard\",\"filter\":[\"lowercase\",\"kstem\",\"g\",\"h\"]}}}",
    "{\"filter\":{\"g\":{\"type\":\"snowball\",\"language\":\"German\"}},"
    "\"analyzer\":{\"a\":{\"tokenizer\":\"standard\",\"filter\":[\"lowercase\",\"kstem\",\"g\"]}}}",
    "{\"analyzer\":{\"a\":{\"tokenizer\":\"icu_tokenizer\",\"filter\":[\"icu_folding\"]}}}",
    "{\"filter\":{\"r\":{\"type\":\"kuromoji_readingform\",\"use_romaji\":true}},"
    "\"analyzer\":{\"a\":{\"tokenizer\":\"kuromoji_tokenizer\",\"filter\":[\"kuromoji_number\",\"r\"]}}}",
};
#define NDEFS (sizeof DEFS / sizeof DEFS[0])

static tv_analysis *regs[NDEFS];

static void run(const tv_analyzer *an, const char *text, size_t len) {
    tv_arena a;
    tv_arena_init(&a);
    fuzz_text_check(an, &a, text, len, 0, 0);
    tv_arena_fini(&a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static bool ready;
    if (!ready) {
        for (size_t i = 0; i < NDEFS; i++) {
            tv_error err = TV_ERROR_INIT;
            regs[i] = tv_analysis_new(DEFS[i], strlen(DEFS[i]), &err); /* NULL: not in this build */
        }
        ready = true;
    }
    for (size_t i = 0; i < NDEFS; i++)
        if (regs[i]) run(tv_analysis_get(regs[i], "a", 1), (const char *)data, size);
    return 0;
}
