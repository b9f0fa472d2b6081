/* test_api_ingest.c — ingest pipelines through trove_request: the
 * pipeline API (PUT validation with ConfigurationUtils' errors, GET with
 * ids and wildcards, DELETE), _simulate (plain and verbose), the write
 * path (?pipeline on index, _bulk's per-action and URL pipelines,
 * index.default_pipeline and index.final_pipeline, upserts, _reindex's
 * dest.pipeline), drop, on_failure, the pipeline processor and its cycle
 * detection, rerouting through ctx._index, the processors' results, and
 * pipelines copied to clones. Cases mirror OpenSearch's ingest-common
 * YAML tests (20_crud, 90_simulate, 200_default_pipeline, 210_pipeline_processor,
 * 220_drop_processor, 240_required_pipeline). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#define API_TEST_MASK_TOOK
#include "api_test.h"

#define SHARDS "\"_shards\":{\"total\":2,\"successful\":1,\"failed\":0}"
#define ACK "{\"acknowledged\":true}"

static void test_crud(void **s) {
    (void)s;
    const char *p1 = "{\"description\":\"_description\",\"processors\":[{\"set\":{\"field\":\"field2\",\"value\":\"_value\"}}]}";
    EXPECT("PUT", "/_ingest/pipeline/my_pipeline", p1, 200, ACK);
    EXPECT("GET", "/_ingest/pipeline/my_pipeline", NULL, 200,
           "{\"my_pipeline\":{\"description\":\"_description\",\"processors\":[{\"set\":{\"field\":\"field2\","
           "\"value\":\"_value\"}}]}}");
    OK("PUT", "/_ingest/pipeline/other", "{\"processors\":[]}");
    EXPECT("GET", "/_ingest/pipeline/oth*", NULL, 200, "{\"other\":{\"processors\":[]}}");
    EXPECT_HAS("GET", "/_ingest/pipeline", NULL, 200, "\"other\":{\"processors\":[]}");
    EXPECT_HAS("GET", "/_ingest/pipeline/my_pipeline,other", NULL, 200,
               "{\"my_pipeline\":{\"description\":\"_description\"");
    EXPECT("GET", "/_ingest/pipeline/missing", NULL, 404, "{}");
    /* a PUT replaces */
    EXPECT("PUT", "/_ingest/pipeline/other", "{\"processors\":[{\"drop\":{}}]}", 200, ACK);
    EXPECT("GET", "/_ingest/pipeline/other", NULL, 200, "{\"other\":{\"processors\":[{\"drop\":{}}]}}");
    EXPECT("DELETE", "/_ingest/pipeline/my_pipeline", NULL, 200, ACK);
    EXPECT("DELETE", "/_ingest/pipeline/my_pipeline", NULL, 404,
           "{\"error\":{\"root_cause\":[{\"type\":\"resource_not_found_exception\",\"reason\":\"pipeline "
           "[my_pipeline] is missing\"}],\"type\":\"resource_not_found_exception\",\"reason\":\"pipeline "
           "[my_pipeline] is missing\"},\"status\":404}");
    EXPECT("DELETE", "/_ingest/pipeline/o*", NULL, 200, ACK);
    EXPECT("GET", "/_ingest/pipeline/other", NULL, 404, "{}");
    EXPECT("DELETE", "/_ingest/pipeline/*", NULL, 200, ACK);
}

static void test_put_validation(void **s) {
    (void)s;
    EXPECT("PUT", "/_ingest/pipeline/p", "{\"processors\":[{\"set\":{\"tag\":\"fails\",\"value\":\"_value\"}}]}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"parse_exception\",\"reason\":\"[field] required property is "
           "missing\",\"processor_type\":\"set\",\"processor_tag\":\"fails\",\"property_name\":\"field\"}],"
           "\"type\":\"parse_exception\",\"reason\":\"[field] required property is missing\",\"processor_type\":"
           "\"set\",\"processor_tag\":\"fails\",\"property_name\":\"field\"},\"status\":400}");
    EXPECT("PUT", "/_ingest/pipeline/p", "{\"processors\":[{\"nope\":{}}]}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"parse_exception\",\"reason\":\"No processor type exists with "
           "name [nope]\",\"processor_type\":\"nope\"}],\"type\":\"parse_exception\",\"reason\":\"No processor type "
           "exists with name [nope]\",\"processor_type\":\"nope\"},\"status\":400}");
    EXPECT_HAS("PUT", "/_ingest/pipeline/p", "{\"description\":\"x\"}", 400,
               "\"reason\":\"[processors] required property is missing\",\"property_name\":\"processors\"");
    EXPECT_HAS("PUT", "/_ingest/pipeline/p", "{\"processors\":[{\"set\":{\"field\":\"a\",\"value\":1,\"bogus\":2}}]}",
               400, "\"reason\":\"processor [set] doesn't support one or more provided configuration parameters [bogus]\"");
    EXPECT_HAS("PUT", "/_ingest/pipeline/p", "{\"processors\":[{\"set\":{\"field\":1,\"value\":1}}]}", 400,
               "\"reason\":\"[field] property isn't a string, but of type [java.lang.Integer]\"");
    EXPECT_HAS("PUT", "/_ingest/pipeline/p", "{\"processors\":[{\"convert\":{\"field\":\"a\",\"type\":\"x\"}}]}", 400,
               "\"reason\":\"[type] type [x] not supported, cannot convert field.\"");
    EXPECT_HAS("PUT", "/_ingest/pipeline/p", "{\"processors\":[{\"set\":{\"field\":\"a\",\"value\":1,\"on_failure\":[]}}]}",
               400, "\"reason\":\"[on_failure] processors list cannot be empty\"");
    EXPECT_HAS("PUT", "/_ingest/pipeline/p", "{\"processors\":[],\"on_failure\":[]}", 400,
               "\"reason\":\"pipeline [p] cannot have an empty on_failure option defined\"");
    /* a script is compiled at PUT */
    EXPECT_HAS("PUT", "/_ingest/pipeline/p", "{\"processors\":[{\"script\":{\"source\":\"ctx.x = ;\"}}]}", 400,
               "\"type\":\"script_exception\",\"reason\":\"compile error\",\"processor_type\":\"script\"");
    /* what trove does not run is refused, naming it */
    EXPECT_HAS("PUT", "/_ingest/pipeline/p", "{\"processors\":[{\"grok\":{\"field\":\"a\",\"patterns\":[\"x\"]}}]}", 400,
               "\"type\":\"unsupported_operation_exception\",\"reason\":\"trove does not support the ingest processor [grok]\"");
    EXPECT_HAS("PUT", "/_ingest/pipeline/p", "{\"processors\":[{\"split\":{\"field\":\"a\",\"separator\":\"(x)\"}}]}", 400,
               "\"type\":\"unsupported_operation_exception\",\"reason\":\"trove does not support the regular expression [(x)]");
    EXPECT("GET", "/_ingest/pipeline/p", NULL, 404, "{}");
}

static void test_index_with_pipeline(void **s) {
    (void)s;
    OK("PUT", "/_ingest/pipeline/p1",
       "{\"processors\":[{\"set\":{\"field\":\"f2\",\"value\":\"{{f1}}-{{{n}}}\"}},{\"uppercase\":{\"field\":\"f1\"}},"
       "{\"convert\":{\"field\":\"n\",\"type\":\"integer\"}}]}");
    EXPECT("PUT", "/t/_doc/1?pipeline=p1", "{\"f1\":\"abc\",\"n\":\"42\"}", 201,
           "{\"_index\":\"t\",\"_id\":\"1\",\"_version\":1,\"result\":\"created\"," SHARDS ",\"_seq_no\":0,\"_primary_term\":1}");
    /* the source comes back as the pipeline left it, in HashMap order */
    EXPECT("GET", "/t/_source/1", NULL, 200, "{\"f1\":\"ABC\",\"f2\":\"abc-42\",\"n\":42}");
    EXPECT("PUT", "/t/_doc/2?pipeline=nope", "{\"a\":1}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"illegal_argument_exception\",\"reason\":\"pipeline with id [nope] "
           "does not exist\"}],\"type\":\"illegal_argument_exception\",\"reason\":\"pipeline with id [nope] does not "
           "exist\"},\"status\":400}");
    EXPECT_STATUS("GET", "/t/_doc/2", NULL, 404);
    /* a processor's failure is the write's */
    EXPECT("PUT", "/t/_doc/3?pipeline=p1", "{\"f1\":\"abc\",\"n\":\"x\"}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"illegal_argument_exception\",\"reason\":\"unable to convert [x] "
           "to integer\"}],\"type\":\"illegal_argument_exception\",\"reason\":\"unable to convert [x] to integer\"},"
           "\"status\":400}");
    /* _bulk: the action's pipeline, else the URL's */
    OK("PUT", "/_ingest/pipeline/p2", "{\"processors\":[{\"set\":{\"field\":\"via\",\"value\":\"p2\"}}]}");
    EXPECT("POST", "/_bulk?pipeline=p2&refresh=true",
           "{\"index\":{\"_index\":\"b\",\"_id\":\"1\"}}\n{\"a\":1}\n"
           "{\"index\":{\"_index\":\"b\",\"_id\":\"2\",\"pipeline\":\"missing\"}}\n{\"a\":2}\n"
           "{\"create\":{\"_index\":\"b\",\"_id\":\"3\",\"pipeline\":\"_none\"}}\n{\"a\":3}\n",
           200,
           "{\"took\":0,\"errors\":true,\"items\":[{\"index\":{\"_index\":\"b\",\"_id\":\"1\",\"_version\":1,\"result\":"
           "\"created\",\"forced_refresh\":true," SHARDS ",\"_seq_no\":0,\"_primary_term\":1,\"status\":201}},"
           "{\"index\":{\"_index\":\"b\",\"_id\":\"2\",\"status\":400,\"error\":{\"type\":\"illegal_argument_exception\","
           "\"reason\":\"pipeline with id [missing] does not exist\"}}},{\"create\":{\"_index\":\"b\",\"_id\":\"3\","
           "\"_version\":1,\"result\":\"created\",\"forced_refresh\":true," SHARDS ",\"_seq_no\":1,\"_primary_term\":1,"
           "\"status\":201}}]}");
    EXPECT("GET", "/b/_source/1", NULL, 200, "{\"a\":1,\"via\":\"p2\"}");
    EXPECT("GET", "/b/_source/3", NULL, 200, "{\"a\":3}");
}

static void test_drop_and_failures(void **s) {
    (void)s;
    OK("PUT", "/_ingest/pipeline/my_pipeline", "{\"processors\":[{\"drop\":{\"if\":\"ctx.foo == 'bar'\"}}]}");
    EXPECT("PUT", "/test/_doc/1?pipeline=my_pipeline", "{\"foo\":\"bar\"}", 200,
           "{\"_index\":\"test\",\"_id\":\"1\",\"_version\":-3,\"result\":\"noop\",\"_shards\":{\"total\":0,"
           "\"successful\":0,\"failed\":0}}");
    OK("PUT", "/test/_doc/2?pipeline=my_pipeline", "{\"foo\":\"blub\"}");
    EXPECT_STATUS("GET", "/test/_doc/1", NULL, 404);
    EXPECT("GET", "/test/_source/2", NULL, 200, "{\"foo\":\"blub\"}");
    EXPECT("POST", "/_bulk", "{\"index\":{\"_index\":\"test\",\"_id\":\"5\",\"pipeline\":\"my_pipeline\"}}\n{\"foo\":\"bar\"}\n",
           200,
           "{\"took\":0,\"errors\":false,\"items\":[{\"index\":{\"_index\":\"test\",\"_id\":\"5\",\"_version\":-3,"
           "\"result\":\"noop\",\"_shards\":{\"total\":0,\"successful\":0,\"failed\":0},\"status\":200}}]}");
    /* on_failure drops */
    OK("PUT", "/_ingest/pipeline/fd", "{\"processors\":[{\"fail\":{\"message\":\"failed\",\"on_failure\":[{\"drop\":{}}]}}]}");
    OK("PUT", "/test/_doc/3?pipeline=fd", "{\"foo\":\"bar\"}");
    EXPECT_STATUS("GET", "/test/_doc/3", NULL, 404);
    /* fail: its exception and 500; templates in the message */
    OK("PUT", "/_ingest/pipeline/f", "{\"processors\":[{\"fail\":{\"message\":\"no {{foo}}\"}}]}");
    EXPECT("PUT", "/test/_doc/4?pipeline=f", "{\"foo\":\"x\"}", 500,
           "{\"error\":{\"root_cause\":[{\"type\":\"fail_processor_exception\",\"reason\":\"no x\"}],\"type\":"
           "\"fail_processor_exception\",\"reason\":\"no x\"},\"status\":500}");
    /* pipeline-level on_failure sees the failure's metadata; the rest is skipped */
    OK("PUT", "/_ingest/pipeline/of",
       "{\"processors\":[{\"rename\":{\"tag\":\"rn\",\"field\":\"missing\",\"target_field\":\"x\"}},"
       "{\"set\":{\"field\":\"skipped\",\"value\":true}}],\"on_failure\":[{\"set\":{\"field\":\"err\",\"value\":"
       "\"{{_ingest.on_failure_message}}|{{_ingest.on_failure_processor_type}}|{{_ingest.on_failure_processor_tag}}\"}}]}");
    OK("PUT", "/test/_doc/6?pipeline=of", "{\"a\":1}");
    EXPECT("GET", "/test/_source/6", NULL, 200, "{\"a\":1,\"err\":\"field [missing] doesn't exist|rename|rn\"}");
    /* ignore_failure and a processor's own on_failure: the next processors run */
    OK("PUT", "/_ingest/pipeline/ig",
       "{\"processors\":[{\"rename\":{\"field\":\"missing\",\"target_field\":\"x\",\"ignore_failure\":true}},"
       "{\"convert\":{\"field\":\"cz\",\"type\":\"integer\",\"on_failure\":[{\"set\":{\"field\":\"bad\",\"value\":1}}]}},"
       "{\"set\":{\"field\":\"after\",\"value\":2}}]}");
    OK("PUT", "/test/_doc/7?pipeline=ig", "{\"cz\":\"z\"}");
    EXPECT("GET", "/test/_source/7", NULL, 200, "{\"bad\":1,\"cz\":\"z\",\"after\":2}");
}

static void test_pipeline_processor(void **s) {
    (void)s;
    OK("PUT", "/_ingest/pipeline/inner", "{\"processors\":[{\"set\":{\"field\":\"inner\",\"value\":1}}]}");
    OK("PUT", "/_ingest/pipeline/outer",
       "{\"processors\":[{\"pipeline\":{\"name\":\"inner\"}},{\"set\":{\"field\":\"outer\",\"value\":2}}]}");
    OK("PUT", "/pp/_doc/1?pipeline=outer", "{}");
    EXPECT("GET", "/pp/_source/1", NULL, 200, "{\"outer\":2,\"inner\":1}");
    OK("PUT", "/_ingest/pipeline/c1", "{\"processors\":[{\"pipeline\":{\"name\":\"c2\"}}]}");
    OK("PUT", "/_ingest/pipeline/c2", "{\"processors\":[{\"pipeline\":{\"name\":\"c1\"}}]}");
    EXPECT("PUT", "/pp/_doc/2?pipeline=c1", "{}", 500,
           "{\"error\":{\"root_cause\":[{\"type\":\"illegal_state_exception\",\"reason\":\"Cycle detected for "
           "pipeline: c1\"}],\"type\":\"illegal_state_exception\",\"reason\":\"Cycle detected for pipeline: c1\"},"
           "\"status\":500}");
    OK("PUT", "/_ingest/pipeline/dangling", "{\"processors\":[{\"pipeline\":{\"name\":\"gone\"}}]}");
    EXPECT_HAS("PUT", "/pp/_doc/3?pipeline=dangling", "{}", 400,
               "\"reason\":\"Pipeline processor configured for non-existent pipeline [gone]\"");
    /* through an alias, ctx._index is the alias */
    OK("PUT", "/ali-idx", "{\"aliases\":{\"ali\":{}}}");
    OK("PUT", "/_ingest/pipeline/idx", "{\"processors\":[{\"set\":{\"field\":\"i\",\"value\":\"{{_index}}/{{_id}}\"}}]}");
    EXPECT("PUT", "/ali/_doc/1?pipeline=idx", "{}", 201,
           "{\"_index\":\"ali-idx\",\"_id\":\"1\",\"_version\":1,\"result\":\"created\"," SHARDS
           ",\"_seq_no\":0,\"_primary_term\":1}");
    EXPECT("GET", "/ali-idx/_source/1", NULL, 200, "{\"i\":\"ali/1\"}");
    /* ctx._index reroutes; a script sees the metadata */
    OK("PUT", "/_ingest/pipeline/route",
       "{\"processors\":[{\"script\":{\"source\":\"ctx.n = ctx.foo.length() + params.k; ctx._index = 'routed'; "
       "ctx.was = ctx._id\",\"params\":{\"k\":10}}}]}");
    EXPECT("PUT", "/pp/_doc/4?pipeline=route", "{\"foo\":\"xyz\"}", 201,
           "{\"_index\":\"routed\",\"_id\":\"4\",\"_version\":1,\"result\":\"created\"," SHARDS
           ",\"_seq_no\":0,\"_primary_term\":1}");
    EXPECT("GET", "/routed/_source/4", NULL, 200, "{\"foo\":\"xyz\",\"was\":\"4\",\"n\":13}");
}

static void test_default_final(void **s) {
    (void)s;
    OK("PUT", "/_ingest/pipeline/fin",
       "{\"processors\":[{\"bytes\":{\"field\":\"bytes_source_field\",\"target_field\":\"bytes_target_field\"}}]}");
    OK("PUT", "/_ingest/pipeline/def", "{\"processors\":[{\"set\":{\"field\":\"def\",\"value\":true}}]}");
    OK("PUT", "/_ingest/pipeline/req", "{\"processors\":[{\"set\":{\"field\":\"req\",\"value\":true}}]}");
    OK("PUT", "/test", "{\"settings\":{\"index\":{\"final_pipeline\":\"fin\",\"default_pipeline\":\"def\"}},"
                       "\"aliases\":{\"test_alias\":{}}}");
    OK("PUT", "/test/_doc/1", "{\"bytes_source_field\":\"1kb\"}");
    EXPECT("GET", "/test/_source/1", NULL, 200, "{\"def\":true,\"bytes_target_field\":1024,\"bytes_source_field\":\"1kb\"}");
    /* a request pipeline replaces the default one; the final one still runs */
    OK("PUT", "/test_alias/_doc/2?pipeline=req", "{\"bytes_source_field\":\"2kb\"}");
    EXPECT("GET", "/test/_source/2", NULL, 200, "{\"bytes_target_field\":2048,\"bytes_source_field\":\"2kb\",\"req\":true}");
    /* _none disables the default only */
    OK("PUT", "/test/_doc/3?pipeline=_none", "{\"bytes_source_field\":\"1kb\"}");
    EXPECT("GET", "/test/_source/3", NULL, 200, "{\"bytes_target_field\":1024,\"bytes_source_field\":\"1kb\"}");
    /* upserts go through the pipelines; updates of existing documents do not */
    OK("POST", "/test/_update/4", "{\"doc\":{\"bytes_source_field\":\"2kb\"},\"doc_as_upsert\":true}");
    EXPECT("GET", "/test/_source/4", NULL, 200, "{\"def\":true,\"bytes_target_field\":2048,\"bytes_source_field\":\"2kb\"}");
    OK("POST", "/test/_update/4", "{\"doc\":{\"x\":1}}");
    EXPECT("GET", "/test/_source/4", NULL, 200,
           "{\"def\":true,\"bytes_target_field\":2048,\"bytes_source_field\":\"2kb\",\"x\":1}");
    OK("POST", "/test/_update/5",
       "{\"script\":{\"source\":\"ctx._source.ran_script = true\"},\"upsert\":{\"bytes_source_field\":\"3kb\"},"
       "\"scripted_upsert\":true}");
    EXPECT("GET", "/test/_source/5", NULL, 200,
           "{\"def\":true,\"bytes_target_field\":3072,\"bytes_source_field\":\"3kb\",\"ran_script\":true}");
    /* an index the write creates gets its templates' pipelines first */
    OK("PUT", "/_index_template/tpl", "{\"index_patterns\":[\"auto-*\"],\"template\":{\"settings\":"
                                      "{\"index.default_pipeline\":\"def\"}}}");
    OK("PUT", "/auto-1/_doc/1", "{\"a\":1}");
    EXPECT("GET", "/auto-1/_source/1", NULL, 200, "{\"a\":1,\"def\":true}");
    /* a missing default pipeline fails the write */
    OK("PUT", "/test2", "{\"settings\":{\"index.default_pipeline\":\"nope\"}}");
    EXPECT_HAS("PUT", "/test2/_doc/1", "{}", 400, "\"reason\":\"pipeline with id [nope] does not exist\"");
    /* the final pipeline may not change the index */
    OK("PUT", "/_ingest/pipeline/move", "{\"processors\":[{\"set\":{\"field\":\"_index\",\"value\":\"elsewhere\"}}]}");
    OK("PUT", "/test3", "{\"settings\":{\"index.final_pipeline\":\"move\"}}");
    EXPECT("PUT", "/test3/_doc/1", "{}", 500,
           "{\"error\":{\"root_cause\":[{\"type\":\"illegal_state_exception\",\"reason\":\"final pipeline [move] can't "
           "change the target index\"}],\"type\":\"illegal_state_exception\",\"reason\":\"final pipeline [move] can't "
           "change the target index\"},\"status\":500}");
    /* _update_by_query: ?pipeline (a dropped document is a noop) */
    OK("PUT", "/ubq/_doc/1?refresh=true", "{\"v\":\"B\"}");
    OK("PUT", "/ubq/_doc/2?refresh=true", "{\"v\":\"C\",\"drop\":true}");
    OK("PUT", "/_ingest/pipeline/lowdrop", "{\"processors\":[{\"drop\":{\"if\":\"ctx.drop == true\"}},"
                                           "{\"lowercase\":{\"field\":\"v\"}}]}");
    EXPECT_HAS("POST", "/ubq/_update_by_query?pipeline=lowdrop&refresh=true", NULL, 200,
               "\"total\":2,\"updated\":1,\"deleted\":0,\"batches\":1,\"version_conflicts\":0,\"noops\":1");
    EXPECT("GET", "/ubq/_source/1", NULL, 200, "{\"v\":\"b\"}");
    EXPECT("GET", "/ubq/_source/2", NULL, 200, "{\"v\":\"C\",\"drop\":true}");
    /* _reindex's dest.pipeline */
    OK("PUT", "/src/_doc/1?refresh=true", "{\"v\":\"A\"}");
    OK("PUT", "/_ingest/pipeline/low", "{\"processors\":[{\"lowercase\":{\"field\":\"v\"}}]}");
    EXPECT_HAS("POST", "/_reindex?refresh=true", "{\"source\":{\"index\":\"src\"},\"dest\":{\"index\":\"dst\",\"pipeline\":\"low\"}}",
               200, "\"created\":1");
    EXPECT("GET", "/dst/_source/1", NULL, 200, "{\"v\":\"a\"}");
}

static void test_simulate(void **s) {
    (void)s;
    OK("PUT", "/_ingest/pipeline/my_pipeline", "{\"processors\":[{\"set\":{\"field\":\"field2\",\"value\":\"_value\"}}]}");
    EXPECT_HAS("POST", "/_ingest/pipeline/my_pipeline/_simulate",
               "{\"docs\":[{\"_index\":\"index\",\"_id\":\"id\",\"_source\":{\"foo\":\"bar\"}}]}", 200,
               "{\"docs\":[{\"doc\":{\"_index\":\"index\",\"_id\":\"id\",\"_source\":{\"foo\":\"bar\",\"field2\":\"_value\"},"
               "\"_ingest\":{\"timestamp\":\"");
    EXPECT("POST", "/_ingest/pipeline/_simulate", "{\"docs\":[{\"_source\":{}}]}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"parse_exception\",\"reason\":\"[pipeline] required property is "
           "missing\",\"property_name\":\"pipeline\"}],\"type\":\"parse_exception\",\"reason\":\"[pipeline] required "
           "property is missing\",\"property_name\":\"pipeline\"},\"status\":400}");
    EXPECT_HAS("POST", "/_ingest/pipeline/_simulate",
               "{\"pipeline\":{\"processors\":[{\"set\":{\"field\":\"field2\"}}]},\"docs\":[{\"_source\":{}}]}", 400,
               "\"reason\":\"[value] required property is missing\",\"processor_type\":\"set\",\"property_name\":\"value\"");
    /* an error per document */
    EXPECT_HAS("POST", "/_ingest/pipeline/_simulate",
               "{\"pipeline\":{\"processors\":[{\"uppercase\":{\"field\":\"foo\"}}]},\"docs\":[{\"_source\":{\"not_foo\":"
               "\"bar\"}},{\"_source\":{\"foo\":\"bar\"}}]}",
               200,
               "{\"docs\":[{\"error\":{\"root_cause\":[{\"type\":\"illegal_argument_exception\",\"reason\":\"field [foo] "
               "not present as part of path [foo]\"}],\"type\":\"illegal_argument_exception\",\"reason\":\"field [foo] "
               "not present as part of path [foo]\"}},{\"doc\":{\"_index\":\"_index\",\"_id\":\"_id\",\"_source\":{\"foo\":"
               "\"BAR\"}");
    /* verbose: one result per processor, the failing one's error */
    EXPECT_HAS("POST", "/_ingest/pipeline/_simulate?verbose=true",
               "{\"pipeline\":{\"processors\":[{\"set\":{\"tag\":\"t\",\"field\":\"a\",\"value\":1}},{\"rename\":"
               "{\"field\":\"does_not_exist\",\"target_field\":\"x\"}}]},\"docs\":[{\"_source\":{}}]}",
               200,
               "{\"docs\":[{\"processor_results\":[{\"processor_type\":\"set\",\"status\":\"success\",\"tag\":\"t\","
               "\"doc\":{\"_index\":\"_index\",\"_id\":\"_id\",\"_source\":{\"a\":1},\"_ingest\":{\"pipeline\":"
               "\"_simulate_pipeline\",\"timestamp\":");
    EXPECT_HAS("POST", "/_ingest/pipeline/_simulate?verbose=true",
               "{\"pipeline\":{\"processors\":[{\"rename\":{\"field\":\"does_not_exist\",\"target_field\":\"x\"}}]},"
               "\"docs\":[{\"_source\":{}}]}",
               200,
               "{\"docs\":[{\"processor_results\":[{\"processor_type\":\"rename\",\"status\":\"error\",\"error\":"
               "{\"root_cause\":[{\"type\":\"illegal_argument_exception\",\"reason\":\"field [does_not_exist] doesn't "
               "exist\"}],\"type\":\"illegal_argument_exception\",\"reason\":\"field [does_not_exist] doesn't exist\"}}]}]}");
    /* a skipped processor shows its condition */
    EXPECT_HAS("POST", "/_ingest/pipeline/_simulate?verbose",
               "{\"pipeline\":{\"processors\":[{\"drop\":{\"if\":\"ctx.x == 1\"}}]},\"docs\":[{\"_source\":{\"x\":2}}]}",
               200,
               "{\"processor_type\":\"drop\",\"status\":\"skipped\",\"if\":{\"condition\":\"ctx.x == 1\",\"result\":false}}");
}

static void test_processors(void **s) {
    (void)s;
    /* many processors over one document, through _simulate */
    EXPECT_HAS(
        "POST", "/_ingest/pipeline/_simulate",
        "{\"pipeline\":{\"processors\":[{\"split\":{\"field\":\"s\",\"separator\":\"\\\\s*,\\\\s*\"}},"
        "{\"join\":{\"field\":\"s\",\"separator\":\"|\",\"target_field\":\"j\"}},"
        "{\"gsub\":{\"field\":\"g\",\"pattern\":\"[0-9]+\",\"replacement\":\"#\"}},"
        "{\"kv\":{\"field\":\"kv\",\"field_split\":\"&\",\"value_split\":\"=\",\"target_field\":\"k\"}},"
        "{\"csv\":{\"field\":\"c\",\"target_fields\":[\"c1\",\"c2\",\"c3\"]}},"
        "{\"json\":{\"field\":\"js\",\"target_field\":\"jo\"}},{\"trim\":{\"field\":\"t\"}},"
        "{\"html_strip\":{\"field\":\"h\"}},{\"urldecode\":{\"field\":\"u\"}},"
        "{\"sort\":{\"field\":\"so\",\"order\":\"desc\"}},"
        "{\"append\":{\"field\":\"ap\",\"value\":[\"b\",\"c\"],\"allow_duplicates\":false}},"
        "{\"dot_expander\":{\"field\":\"a.b\"}},"
        "{\"date\":{\"field\":\"d\",\"formats\":[\"dd/MM/yyyy\"],\"timezone\":\"Europe/Amsterdam\"}},"
        "{\"remove\":{\"field\":[\"rm\",\"missing\"],\"ignore_missing\":true}},"
        "{\"convert\":{\"field\":\"cv\",\"type\":\"auto\"}},"
        "{\"foreach\":{\"field\":\"fe\",\"processor\":{\"uppercase\":{\"field\":\"_ingest._value\"}}}}]},"
        "\"docs\":[{\"_source\":{\"s\":\"a , b,c\",\"g\":\"a1b22\",\"kv\":\"x=1&y=2\",\"c\":\"p,\\\"q,r\\\",s\","
        "\"js\":\"{\\\"k\\\":[1,2.5]}\",\"t\":\"  hi \",\"h\":\"<p>x &amp; y</p>\",\"u\":\"a%20b+c\",\"so\":[1,3,2],"
        "\"ap\":[\"a\",\"b\"],\"a.b\":5,\"d\":\"01/02/2020\",\"rm\":1,\"cv\":\"12.5\",\"fe\":[\"x\",\"y\"]}}]}",
        200,
        "\"_source\":{\"a\":{\"b\":5},\"c\":\"p,\\\"q,r\\\",s\",\"d\":\"01/02/2020\",\"jo\":{\"k\":[1,2.5]},\"g\":\"a#b#\","
        "\"h\":\"\\nx & y\\n\",\"js\":\"{\\\"k\\\":[1,2.5]}\",\"j\":\"a|b|c\",\"kv\":\"x=1&y=2\",\"k\":{\"x\":\"1\",\"y\":\"2\"},"
        "\"c1\":\"p\",\"ap\":[\"a\",\"b\",\"c\"],\"c2\":\"q,r\",\"c3\":\"s\",\"s\":[\"a\",\"b\",\"c\"],\"cv\":12.5,"
        "\"@timestamp\":\"2020-02-01T00:00:00.000+01:00\",\"t\":\"hi\",\"u\":\"a b c\",\"so\":[3,2,1],\"fe\":[\"X\",\"Y\"]}");
    /* set: override false, copy_from, ignore_empty_value */
    EXPECT_HAS("POST", "/_ingest/pipeline/_simulate",
               "{\"pipeline\":{\"processors\":[{\"set\":{\"field\":\"a\",\"value\":2,\"override\":false}},"
               "{\"set\":{\"field\":\"b\",\"copy_from\":\"o\"}},{\"set\":{\"field\":\"c\",\"value\":\"{{missing}}\","
               "\"ignore_empty_value\":true}},{\"set\":{\"field\":\"o.x\",\"value\":9}}]},"
               "\"docs\":[{\"_source\":{\"a\":1,\"o\":{\"x\":1}}}]}",
               200, "\"_source\":{\"a\":1,\"b\":{\"x\":1},\"o\":{\"x\":9}}");
    /* copy (remove_source), remove_by_pattern, remove of a missing field */
    EXPECT_HAS("POST", "/_ingest/pipeline/_simulate",
               "{\"pipeline\":{\"processors\":[{\"copy\":{\"source_field\":\"a\",\"target_field\":\"b.c\","
               "\"remove_source\":true}},{\"remove_by_pattern\":{\"field_pattern\":[\"x*\"]}}]},"
               "\"docs\":[{\"_source\":{\"a\":{\"q\":1},\"x1\":1,\"x2\":2,\"y\":3}}]}",
               200, "\"_source\":{\"b\":{\"c\":{\"q\":1}},\"y\":3}");
    EXPECT_HAS("POST", "/_ingest/pipeline/_simulate",
               "{\"pipeline\":{\"processors\":[{\"copy\":{\"source_field\":\"a\",\"target_field\":\"y\"}}]},"
               "\"docs\":[{\"_source\":{\"a\":1,\"y\":3}}]}",
               200, "\"reason\":\"target field [y] already exists\"");
    EXPECT_HAS("POST", "/_ingest/pipeline/_simulate",
               "{\"pipeline\":{\"processors\":[{\"remove\":{\"field\":\"nope\"}}]},\"docs\":[{\"_source\":{}}]}",
               200, "\"reason\":\"field [nope] doesn't exist\"");
    EXPECT_HAS("PUT", "/_ingest/pipeline/x", "{\"processors\":[{\"remove_by_pattern\":{\"field_pattern\":\"_a\"}}]}",
               400, "\"reason\":\"[field_pattern] Validation Failed: 1: field_pattern [_a] must not start with '_';\"");
    /* string processors name the type they cannot cast */
    EXPECT_HAS("POST", "/_ingest/pipeline/_simulate",
               "{\"pipeline\":{\"processors\":[{\"lowercase\":{\"field\":\"n\"}}]},\"docs\":[{\"_source\":{\"n\":5}}]}",
               200, "\"reason\":\"field [n] of type [java.lang.Integer] cannot be cast to [java.lang.String]\"");
}

static void test_clone_and_params(void **s) {
    (void)s;
    OK("PUT", "/_ingest/pipeline/shared", "{\"processors\":[{\"set\":{\"field\":\"s\",\"value\":1}}]}");
    trove_error err;
    trove_node *c = trove_node_clone(N, &err);
    assert_non_null(c);
    trove_node *base = N;
    N = c;
    EXPECT("GET", "/_ingest/pipeline/shared", NULL, 200, "{\"shared\":{\"processors\":[{\"set\":{\"field\":\"s\",\"value\":1}}]}}");
    OK("DELETE", "/_ingest/pipeline/shared", NULL);
    EXPECT("GET", "/_ingest/pipeline/shared", NULL, 404, "{}");
    N = base;
    trove_node_free(c);
    /* the clone's delete did not reach the base */
    EXPECT_HAS("GET", "/_ingest/pipeline/shared", NULL, 200, "\"shared\"");
    EXPECT_HAS("GET", "/_ingest/pipeline/shared?bogus=1", NULL, 400, "contains unrecognized parameter: [bogus]");
    /* nodes info lists the processor types, sorted */
    EXPECT_HAS("GET", "/_nodes/ingest", NULL, 200,
               "\"ingest\":{\"processors\":[{\"type\":\"append\"},{\"type\":\"bytes\"},{\"type\":\"convert\"},");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_crud, setup, teardown),
        cmocka_unit_test_setup_teardown(test_put_validation, setup, teardown),
        cmocka_unit_test_setup_teardown(test_index_with_pipeline, setup, teardown),
        cmocka_unit_test_setup_teardown(test_drop_and_failures, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pipeline_processor, setup, teardown),
        cmocka_unit_test_setup_teardown(test_default_final, setup, teardown),
        cmocka_unit_test_setup_teardown(test_simulate, setup, teardown),
        cmocka_unit_test_setup_teardown(test_processors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_clone_and_params, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
