/*
 * test_api_lang_eu.c — the European language analyzers through the REST
 * API: the smoke words of OpenSearch's analysis-common YAML suite
 * (20_analyzers.yml: each analyzer by bare name and as an index's
 * `type: <lang>` analyzer must give the same one token; 40_token_filters
 * for elision and the stemmer filter), the languages trove cannot run
 * (Estonian, Lithuanian by default: 400 naming what is missing), and a
 * French text field searched through its analyzer.
 */
#include "api_test.h"
#include "text/text.h"

static void analyze_is(const char *path, const char *body, const char *want) {
    char *out;
    int st = req("POST", path, body, &out);
    if (st != 200 || !strstr(out, want)) fail_msg("%s %s\n want %s\n got  %d %s", path, body, want, st, out);
    /* exactly one token */
    const char *first = strstr(out, "\"token\":");
    if (!first || strstr(first + 1, "\"token\":")) fail_msg("%s: not one token: %s", body, out);
    free(out);
}

static void t_smoke(void **s) {
    (void)s;
    static const char *const cases[][3] = {
        {"basque", "zaldiak", "zaldi"},
        {"brazilian", "boataria", "boat"},
        {"catalan", "lleng\xc3\xbc" "es", "llengu"},
        {"danish", "unders\xc3\xb8gelse", "unders\xc3\xb8g"},
        {"dutch", "lidstaten", "lidstat"},
        {"english", "books", "book"},
        {"finnish", "edelt\xc3\xa4jiins\xc3\xa4", "edelt\xc3\xa4j"},
        {"french", "s\xc3\xa9" "curitaires", "securitair"},
        {"galician", "corresponder\xc3\xa1", "correspond"},
        {"german", "Tischen", "tisch"},
        {"hungarian", "babakocsi", "babakocs"},
        {"irish", "siopad\xc3\xb3ireacht", "siopad\xc3\xb3ir"},
        {"italian", "abbandonata", "abbandonat"},
        {"latvian", "tirgiem", "tirg"},
        {"norwegian", "havnedistriktene", "havnedistrikt"},
        {"portuguese", "quilom\xc3\xa9tricas", "quilometric"},
        {"romanian", "absen\xc5\xa3" "a", "absen\xc8\x9b"},
        {"spanish", "chicana", "chican"},
        {"swedish", "jaktkarlarne", "jaktkarl"},
        {"turkish", "a\xc4\x9f" "ac\xc4\xb1", "a\xc4\x9f" "a\xc3\xa7"},
    };
    char body[512], want[128], path[64];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(body, sizeof body, "{\"text\":\"%s\",\"analyzer\":\"%s\"}", cases[i][1], cases[i][0]);
        snprintf(want, sizeof want, "\"token\":\"%s\"", cases[i][2]);
        analyze_is("/_analyze", body, want);
        snprintf(path, sizeof path, "/lang_%s", cases[i][0]);
        snprintf(body, sizeof body,
                 "{\"settings\":{\"analysis\":{\"analyzer\":{\"my_analyzer\":{\"type\":\"%s\"}}}}}",
                 cases[i][0]);
        OK("PUT", path, body);
        snprintf(path, sizeof path, "/lang_%s/_analyze", cases[i][0]);
        snprintf(body, sizeof body, "{\"text\":\"%s\",\"analyzer\":\"my_analyzer\"}", cases[i][1]);
        analyze_is(path, body, want);
        snprintf(path, sizeof path, "/lang_%s", cases[i][0]);
        OK("DELETE", path, NULL);
    }
    /* snowball: English by default, Dutch by name */
    EXPECT("POST", "/_analyze", "{\"text\":\"the brown foxes\",\"analyzer\":\"snowball\"}", 200,
           "{\"tokens\":[{\"token\":\"brown\",\"start_offset\":4,\"end_offset\":9,\"type\":\"<ALPHANUM>\","
           "\"position\":1},{\"token\":\"fox\",\"start_offset\":10,\"end_offset\":15,\"type\":\"<ALPHANUM>\","
           "\"position\":2}]}");
    OK("PUT", "/sb", "{\"settings\":{\"analysis\":{\"analyzer\":{\"my_snowball\":{\"type\":\"snowball\","
                     "\"language\":\"Dutch\"}}}}}");
    EXPECT("POST", "/sb/_analyze", "{\"text\":\"de bruine vossen\",\"analyzer\":\"my_snowball\"}", 200,
           "{\"tokens\":[{\"token\":\"bruin\",\"start_offset\":3,\"end_offset\":9,\"type\":\"<ALPHANUM>\","
           "\"position\":1},{\"token\":\"voss\",\"start_offset\":10,\"end_offset\":16,\"type\":\"<ALPHANUM>\","
           "\"position\":2}]}");
    OK("DELETE", "/sb", NULL);
}

static void t_missing(void **s) {
    (void)s;
    /* OpenSearch has these; Debian's Lucene 4.10 / libstemmer 2.2 lack their data */
    EXPECT_HAS("PUT", "/et", "{\"settings\":{\"analysis\":{\"analyzer\":{\"a\":{\"type\":\"estonian\"}}}}}", 400,
               "unsupported_operation_exception");
    if (!tv_analyzer_builtin("lithuanian", 10)) /* built without Lucene 8's lists */
        EXPECT_HAS("PUT", "/lt", "{\"settings\":{\"analysis\":{\"analyzer\":{\"a\":{\"type\":\"lithuanian\"}}}}}", 400,
                   "its default stop words (Lucene's lt/stopwords.txt) are not available");
}

static void t_filters(void **s) {
    (void)s;
    /* 40_token_filters.yml: elision with articles, case-insensitive */
    OK("PUT", "/el", "{\"settings\":{\"analysis\":{\"analyzer\":{\"my_analyzer\":{\"tokenizer\":\"standard\","
                     "\"filter\":[\"my_elision\"]}},\"filter\":{\"my_elision\":{\"type\":\"elision\","
                     "\"articles\":[\"l\",\"m\",\"t\",\"qu\",\"n\",\"s\",\"j\"],\"articles_case\":true}}}}}");
    EXPECT("POST", "/el/_analyze", "{\"text\":\"L'avion\",\"analyzer\":\"my_analyzer\"}", 200,
           "{\"tokens\":[{\"token\":\"avion\",\"start_offset\":0,\"end_offset\":7,\"type\":\"<ALPHANUM>\","
           "\"position\":0}]}");
    OK("DELETE", "/el", NULL);
    EXPECT_HAS("PUT", "/el", "{\"settings\":{\"analysis\":{\"filter\":{\"e\":{\"type\":\"elision\"}}}}}", 400,
               "elision filter requires [articles] or [articles_path] setting");
    /* stemmer: light_german, minimal_portuguese; a bare name per OpenSearch's pre-configured filters */
    EXPECT("POST", "/_analyze",
           "{\"text\":\"H\xc3\xa4usern\",\"tokenizer\":\"standard\",\"filter\":[\"lowercase\",{\"type\":\"stemmer\","
           "\"language\":\"light_german\"}]}",
           200,
           "{\"tokens\":[{\"token\":\"haus\",\"start_offset\":0,\"end_offset\":7,\"type\":\"<ALPHANUM>\","
           "\"position\":0}]}");
    EXPECT("POST", "/_analyze",
           "{\"text\":\"R\xc3\xa4ksm\xc3\xb6rg\xc3\xa5s\",\"tokenizer\":\"standard\",\"filter\":"
           "[\"scandinavian_folding\"]}",
           200,
           "{\"tokens\":[{\"token\":\"Raksmorgas\",\"start_offset\":0,\"end_offset\":10,\"type\":\"<ALPHANUM>\","
           "\"position\":0}]}");
}

static void t_search(void **s) {
    (void)s;
    /* a French field: the query goes through the same analyzer (elision, stemming, accents) */
    OK("PUT", "/fr", "{\"mappings\":{\"properties\":{\"t\":{\"type\":\"text\",\"analyzer\":\"french\"}}}}");
    OK("PUT", "/fr/_doc/1?refresh=true", "{\"t\":\"Les ch\xc3\xa2teaux de l'\xc3\xa9t\xc3\xa9\"}");
    EXPECT_HAS("POST", "/fr/_search", "{\"query\":{\"match\":{\"t\":\"chateau ete\"}}}", 200,
               "\"total\":{\"value\":1,\"relation\":\"eq\"}");
    EXPECT_HAS("POST", "/fr/_search", "{\"query\":{\"match\":{\"t\":\"les de\"}}}", 200,
               "\"total\":{\"value\":0,\"relation\":\"eq\"}");
    OK("DELETE", "/fr", NULL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_smoke),
        cmocka_unit_test(t_missing),
        cmocka_unit_test(t_filters),
        cmocka_unit_test(t_search),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
