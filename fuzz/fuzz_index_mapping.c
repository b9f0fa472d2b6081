/*
 * fuzz_index_mapping.c — feeds arbitrary bytes to the mapping and document
 * parsers. The input is split at the first NUL (or used whole): the first
 * part is parsed as a "mappings" object; if it is a valid mapping, the
 * second part (or the whole input) is parsed as a document against it, the
 * dynamic update is merged and the document parsed again, and the mapping
 * is printed. Also exercises the date parser on the raw text. Nothing may
 * crash, leak or trip a sanitizer.
 */
#include <stdint.h>
#include <string.h>

#include "index/date.h"
#include "index/index.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *p = (const char *)data;
    const char *nul = memchr(p, 0, size);
    size_t mlen = nul ? (size_t)(nul - p) : size;
    const char *doc = nul ? nul + 1 : p;
    size_t dlen = nul ? size - mlen - 1 : size;

    tv_arena a;
    tv_arena_init(&a);
    tv_json *mj = NULL;
    tv_json_error je;
    tv_error err = TV_ERROR_INIT;
    if (tv_json_parse(&a, p, mlen, &mj, &je) == TROVE_OK) {
        tv_error_clear(&err);
        tv_mapping *m = tv_mapping_parse(mj, NULL, &err);
        tv_error_clear(&err);
        if (!m) m = tv_mapping_parse(NULL, NULL, &err);
        if (m) {
            tv_parsed_doc d;
            tv_json *upd = NULL;
            tv_error_clear(&err);
            tv_status st = tv_doc_parse(m, "id", 2, doc, dlen, &a, &d, &upd, &err);
            if (st == TROVE_OK && upd) {
                tv_error_clear(&err);
                tv_mapping *m2 = tv_mapping_merge(m, upd, NULL, &err);
                if (m2) {
                    tv_error_clear(&err);
                    tv_doc_parse(m2, "id", 2, doc, dlen, &a, &d, &upd, &err);
                    tv_mapping_release(m);
                    m = m2;
                }
            }
            /* merging the mapping with itself must succeed or fail cleanly */
            tv_error_clear(&err);
            tv_mapping *m3 = tv_mapping_merge(m, mj, NULL, &err);
            tv_mapping_release(m3);
            tv_buf b;
            tv_buf_init(&b);
            tv_jw w;
            tv_jw_init(&w, &b, false);
            tv_mapping_write(m, &w);
            tv_buf_fini(&b);
            const tv_field *out[4];
            tv_mapping_match_fields(m, "*a*", 3, out, 4);
            tv_mapping_release(m);
        }
    }
    int64_t ms;
    char fmt[64];
    size_t fl = mlen < sizeof fmt - 1 ? mlen : sizeof fmt - 1;
    memcpy(fmt, p, fl);
    fmt[fl] = '\0';
    if (fl && !memchr(fmt, 0, fl)) {
        tv_error_clear(&err);
        if (tv_date_format_check(fmt, &err) == TROVE_OK) {
            tv_error_clear(&err);
            tv_date_parse(fmt, doc, dlen, &ms, &err);
            char out[128];
            tv_date_format(123456789, fmt, out, sizeof out);
        }
    }
    tv_error_clear(&err);
    tv_date_parse(NULL, doc, dlen, &ms, &err);
    tv_error_clear(&err);
    tv_date_math(NULL, doc, dlen, 1600000000000LL, true, &ms, &err);
    tv_arena_fini(&a);
    return 0;
}
