#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "api_test.h"

static void P(const char *m, const char *p, const char *b) {
    char *got;
    int st = req(m, p, b, &got);
    printf("%s %s\n%d %s\n\n", m, p, st, got);
    free(got);
}

static void test_basic(void **s) {
    (void)s;
    OK("PUT", "/a", "{\"mappings\":{\"properties\":{\"title\":{\"type\":\"text\",\"fields\":{\"keyword\":{\"type\":\"keyword\",\"ignore_above\":256},\"raw\":{\"type\":\"keyword\",\"meta\":{\"unit\":\"none\"}}}},\"fd\":{\"type\":\"text\",\"fielddata\":true},\"kw_noidx\":{\"type\":\"keyword\",\"index\":false},\"kw_nodv\":{\"type\":\"keyword\",\"doc_values\":false},\"flag\":{\"type\":\"boolean\"},\"addr\":{\"type\":\"ip\"},\"blob\":{\"type\":\"binary\"},\"blob_dv\":{\"type\":\"binary\",\"doc_values\":true},\"ck\":{\"type\":\"constant_keyword\",\"value\":\"x\"},\"wc\":{\"type\":\"wildcard\"},\"mot\":{\"type\":\"match_only_text\"},\"tc\":{\"type\":\"token_count\",\"analyzer\":\"standard\"},\"dn\":{\"type\":\"date_nanos\"},\"sf\":{\"type\":\"scaled_float\",\"scaling_factor\":10},\"ul\":{\"type\":\"unsigned_long\"},\"fo\":{\"type\":\"flat_object\"},\"user\":{\"properties\":{\"address\":{\"properties\":{\"city\":{\"type\":\"keyword\"}}},\"name\":{\"type\":\"text\",\"fields\":{\"raw\":{\"type\":\"keyword\"}}}}},\"latency\":{\"type\":\"long\",\"meta\":{\"unit\":\"ms\",\"metric_type\":\"gauge\"}}}}}");
    P("GET", "/a/_field_caps?fields=title*", NULL);
    P("GET", "/a/_field_caps?fields=fd,kw_noidx,kw_nodv,flag,addr,blob,blob_dv,ck,wc,mot,tc,dn,sf,ul,fo", NULL);
    P("GET", "/a/_field_caps?fields=user.*", NULL);
    P("GET", "/a/_field_caps?fields=user.name.raw", NULL);
    P("GET", "/a/_field_caps?fields=latency,fo.x", NULL);
    OK("PUT", "/b", "{\"mappings\":{\"properties\":{\"latency\":{\"type\":\"long\",\"meta\":{\"unit\":\"ns\",\"metric_type\":\"gauge\"}}}}}");
    P("GET", "/a,b/_field_caps?fields=latency", NULL);
    OK("PUT", "/c/_doc/1?refresh=true", "{\"msg\":\"hello\",\"n\":1,\"o\":{\"p\":true}}");
    P("GET", "/c/_field_caps?fields=msg*,n,o.*", NULL);
    OK("POST", "/_aliases", "{\"actions\":[{\"add\":{\"index\":\"b\",\"alias\":\"al\"}},{\"add\":{\"index\":\"c\",\"alias\":\"al\"}}]}");
    P("GET", "/al/_field_caps?fields=latency,n", NULL);
    P("POST", "/al/_field_caps?fields=n", "{\"index_filter\":{\"match_all\":{}}}");
    P("POST", "/al/_field_caps?fields=n", "{\"index_filter\":{\"match_none\":{}}}");
    P("POST", "/al/_field_caps?fields=n", "{\"index_filter\":{\"range\":{\"n\":{\"gte\":1}}}}");
    P("POST", "/al/_field_caps?fields=n", "{\"query\":{}}");
    P("POST", "/al/_field_caps?fields=n", "[]");
    P("POST", "/al/_field_caps?fields=n", "{}");
    P("POST", "/al/_field_caps?fields=n", "{bad");
    OK("POST", "/b/_close", NULL);
    P("GET", "/b,c/_field_caps?fields=latency,n", NULL);
    P("GET", "/*/_field_caps?fields=latency&expand_wildcards=all", NULL);
    P("GET", "/_field_caps", NULL);
    P("GET", "/_field_caps?fields=", NULL);
    P("GET", "/_field_caps?fields=,", NULL);
    P("GET", "/nope/_field_caps?fields=*", NULL);
    P("GET", "/nope,c/_field_caps?fields=n&ignore_unavailable=true", NULL);
    P("GET", "/nope*/_field_caps?fields=n&allow_no_indices=false", NULL);
    P("GET", "/c/_field_caps?fields=n&include_unmapped=maybe", NULL);
    P("GET", "/c/_field_caps?fields=n&field=x", NULL);
    P("PUT", "/c/_field_caps?fields=n", NULL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_basic, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
