/* test_api_field_caps.c — placeholder, filled below */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "api_test.h"

static void test_basic(void **s) {
    (void)s;
    OK("PUT", "/a", "{\"mappings\":{\"properties\":{\"t\":{\"type\":\"text\"}}}}");
    char *got;
    int st = req("GET", "/a/_field_caps?fields=*", NULL, &got);
    printf("%d %s\n", st, got);
    free(got);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_basic, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
