/*
 * fuzz_index_doc_types.c — feeds arbitrary bytes as a document to a fixed
 * mapping holding every second-round field type (binary with and without
 * doc values, ip, geo_point, date_nanos, unsigned_long, match_only_text,
 * constant_keyword, wildcard, token_count), nested objects (with
 * include_in_parent / include_in_root), copy_to targets and dynamic
 * templates (glob and regex), merging dynamic updates and parsing again as
 * the engine does. The same bytes also go through the ip parser (parse,
 * print, parse again must give the same address), CIDR parsing and the
 * nanosecond date parser and printer. Nothing may crash, leak or trip a
 * sanitizer.
 */
#include <stdint.h>
#include <string.h>

#include "index/date.h"
#include "index/index.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char mapping_json[] =
    "{\"dynamic_templates\":["
    "{\"ints\":{\"match_mapping_type\":\"long\",\"match\":\"i_*\",\"mapping\":{\"type\":\"integer\"}}},"
    "{\"re\":{\"match_pattern\":\"regex\",\"match\":\"^ip_\\\\d+$\",\"mapping\":{\"type\":\"ip\"}}},"
    "{\"any\":{\"path_match\":\"t.*\",\"mapping\":{\"type\":\"{dynamic_type}\",\"meta\":{\"n\":"
    "\"{name}\"}}}}],"
    "\"properties\":{"
    "\"b\":{\"type\":\"binary\"},\"bd\":{\"type\":\"binary\",\"doc_values\":true},"
    "\"ip\":{\"type\":\"ip\",\"copy_to\":\"all\"},\"g\":{\"type\":\"geo_point\"},"
    "\"d\":{\"type\":\"date_nanos\"},\"u\":{\"type\":\"unsigned_long\"},"
    "\"m\":{\"type\":\"match_only_text\",\"copy_to\":[\"all\",\"o.new\"]},"
    "\"c\":{\"type\":\"constant_keyword\",\"value\":\"x\"},\"w\":{\"type\":\"wildcard\"},"
    "\"tc\":{\"type\":\"token_count\",\"analyzer\":\"standard\",\"null_value\":0},"
    "\"all\":{\"type\":\"text\"},\"o\":{\"properties\":{}},"
    "\"ne\":{\"type\":\"nested\",\"include_in_parent\":true,\"properties\":{\"x\":{\"type\":\"keyword\"},"
    "\"in\":{\"type\":\"nested\",\"include_in_root\":true,\"properties\":{\"y\":{\"type\":\"long\"}}}}}}}";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *p = (const char *)data;
    tv_arena a;
    tv_arena_init(&a);
    tv_json *mj = NULL;
    tv_json_error je;
    tv_error err = TV_ERROR_INIT;
    if (tv_json_parse(&a, mapping_json, sizeof mapping_json - 1, &mj, &je) != TROVE_OK) {
        tv_arena_fini(&a);
        return 0;
    }
    tv_error_clear(&err);
    tv_mapping *m = tv_mapping_parse(mj, NULL, &err);
    tv_doc_opts opts = {.total_fields_limit = 30, .unmap_fields_beyond_limit = size % 2 == 0};
    for (int round = 0; m && round < 3; round++) {
        tv_parsed_doc d;
        tv_json *upd = NULL;
        tv_error_clear(&err);
        tv_status st = tv_doc_parse_ex(m, &opts, "id", 2, p, size, &a, &d, &upd, &err);
        if (st != TROVE_OK || !upd) break;
        tv_error_clear(&err);
        tv_mapping *m2 = tv_mapping_merge(m, upd, NULL, &err);
        if (!m2) break;
        tv_mapping_release(m);
        m = m2;
        tv_error_clear(&err);
        tv_mapping_check_limits(m, NULL, &err);
    }
    tv_mapping_release(m);

    uint8_t ip[16], ip2[16], lo[16], hi[16];
    if (tv_ip_parse(p, size, ip)) {
        char txt[TV_IP_TEXT_MAX];
        size_t n = tv_ip_format(ip, txt);
        if (!tv_ip_parse(txt, n, ip2) || memcmp(ip, ip2, 16) != 0) __builtin_trap();
    }
    tv_ip_parse_cidr(p, size, lo, hi);
    int64_t ns;
    tv_error_clear(&err);
    if (tv_date_parse_nanos(NULL, p, size, &ns, &err) == TROVE_OK) {
        char out[96];
        tv_date_format_nanos(ns, NULL, out, sizeof out);
        tv_date_format_nanos(ns, "epoch_millis", out, sizeof out);
    }
    tv_arena_fini(&a);
    return 0;
}
