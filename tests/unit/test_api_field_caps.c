/*
 * test_api_field_caps.c — GET|POST [/{index}]/_field_caps through
 * trove_request, with exact bodies.
 *
 * Not checked against a running OpenSearch: the expected bodies are
 * derived from OpenSearch 3.1's source (RestFieldCapabilitiesAction,
 * TransportFieldCapabilitiesAction, TransportFieldCapabilitiesIndexAction,
 * FieldCapabilities, FieldCapabilitiesResponse, the metadata and field
 * mappers) and its YAML tests field_caps/10_basic.yml, 20_meta.yml and
 * 30_filter.yml, whose assertions these requests repeat. Key order in
 * "fields" and in each field's types is java.util.HashMap iteration
 * order (String.hashCode buckets), computed independently of trove for
 * these keys.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "util/util.h"

#include "api_test.h"

/* One index: leaves, multi-fields (title.keyword) and the objects above
 * a matched leaf; an object named without a wildcard, and an unknown
 * name, answer nothing (mapperService.fieldType is null for both). */
static void test_one_index(void **s) {
    (void)s;
    OK("PUT", "/a",
       "{\"mappings\":{\"properties\":{\"title\":{\"type\":\"text\",\"fields\":{\"keyword\":{\"type\":\"keyword\",\"i"
       "gnore_above\":256},\"raw\":{\"type\":\"keyword\",\"meta\":{\"unit\":\"none\"}}}},\"count\":{\"type\":\"long\""
       "},\"flag\":{\"type\":\"boolean\"},\"user\":{\"properties\":{\"address\":{\"properties\":{\"city\":{\"type\":"
       "\"keyword\"}}},\"name\":{\"type\":\"text\",\"fields\":{\"raw\":{\"type\":\"keyword\"}}}}}}}}");
    EXPECT("GET", "/a/_field_caps?fields=title,count", NULL, 200,
           "{\"indices\":[\"a\"],\"fields\":{\"count\":{\"long\":{\"type\":\"long\",\"searchable\":true,\"aggregatable\""
           ":true}},\"title\":{\"text\":{\"type\":\"text\",\"searchable\":true,\"aggregatable\":false}}}}");
    EXPECT("GET", "/a/_field_caps?fields=title*", NULL, 200,
           "{\"indices\":[\"a\"],\"fields\":{\"title.keyword\":{\"keyword\":{\"type\":\"keyword\",\"searchable\":true,"
           "\"aggregatable\":true}},\"title.raw\":{\"keyword\":{\"type\":\"keyword\",\"searchable\":true,\"aggregat"
           "able\":true,\"meta\":{\"unit\":[\"none\"]}}},\"title\":{\"text\":{\"type\":\"text\",\"searchable\":true,\"ag"
           "gregatable\":false}}}}");
    EXPECT("GET", "/a/_field_caps?fields=user.*", NULL, 200,
           "{\"indices\":[\"a\"],\"fields\":{\"user.name.raw\":{\"keyword\":{\"type\":\"keyword\",\"searchable\":true,"
           "\"aggregatable\":true}},\"user.address.city\":{\"keyword\":{\"type\":\"keyword\",\"searchable\":true,\""
           "aggregatable\":true}},\"user.name\":{\"text\":{\"type\":\"text\",\"searchable\":true,\"aggregatable\":f"
           "alse}},\"user.address\":{\"object\":{\"type\":\"object\",\"searchable\":false,\"aggregatable\":false}}"
           ",\"user\":{\"object\":{\"type\":\"object\",\"searchable\":false,\"aggregatable\":false}}}}");
    EXPECT("GET", "/a/_field_caps?fields=user.name.raw", NULL, 200,
           "{\"indices\":[\"a\"],\"fields\":{\"user.name.raw\":{\"keyword\":{\"type\":\"keyword\",\"searchable\":true,"
           "\"aggregatable\":true}},\"user\":{\"object\":{\"type\":\"object\",\"searchable\":false,\"aggregatable\":"
           "false}}}}");
    EXPECT("GET", "/a/_field_caps?fields=user,nope", NULL, 200,
           "{\"indices\":[\"a\"],\"fields\":{}}");
    EXPECT("GET", "/a/_field_caps?fields=count,count,c*", NULL, 200,
           "{\"indices\":[\"a\"],\"fields\":{\"count\":{\"long\":{\"type\":\"long\",\"searchable\":true,\"aggregatable\""
           ":true}}}}");
    EXPECT("POST", "/a/_field_caps?fields=flag", NULL, 200,
           "{\"indices\":[\"a\"],\"fields\":{\"flag\":{\"boolean\":{\"type\":\"boolean\",\"searchable\":true,\"aggregat"
           "able\":true}}}}");
    EXPECT("POST", "/_field_caps?fields=flag", NULL, 200,
           "{\"indices\":[\"a\"],\"fields\":{\"flag\":{\"boolean\":{\"type\":\"boolean\",\"searchable\":true,\"aggregat"
           "able\":true}}}}");
}

/* field_caps/10_basic.yml's three indices (without nested, which trove
 * lacks): a field with two types lists indices per type;
 * non_searchable_indices / non_aggregatable_indices appear only when
 * some index is and some is not. */
static void test_conflicts(void **s) {
    (void)s;
    OK("PUT", "/test1",
       "{\"mappings\":{\"properties\":{\"text\":{\"type\":\"text\"},\"keyword\":{\"type\":\"keyword\"},\"number\":{\""
       "type\":\"double\"},\"geo\":{\"type\":\"geo_point\"},\"misc\":{\"type\":\"text\"},\"object\":{\"type\":\"object"
       "\",\"properties\":{\"nested1\":{\"type\":\"text\",\"index\":false},\"nested2\":{\"type\":\"float\",\"doc_val"
       "ues\":false}}}}}}");
    OK("PUT", "/test2",
       "{\"mappings\":{\"properties\":{\"text\":{\"type\":\"text\"},\"keyword\":{\"type\":\"keyword\"},\"number\":{\""
       "type\":\"double\"},\"date\":{\"type\":\"date\"},\"geo\":{\"type\":\"geo_point\"},\"object\":{\"type\":\"object"
       "\",\"properties\":{\"nested1\":{\"type\":\"text\",\"index\":true},\"nested2\":{\"type\":\"float\",\"doc_valu"
       "es\":true}}}}}}");
    OK("PUT", "/test3",
       "{\"mappings\":{\"properties\":{\"text\":{\"type\":\"text\"},\"keyword\":{\"type\":\"keyword\"},\"number\":{\""
       "type\":\"long\"},\"date\":{\"type\":\"date\"},\"geo\":{\"type\":\"keyword\"},\"object\":{\"type\":\"object\",\"p"
       "roperties\":{\"nested1\":{\"type\":\"long\",\"index\":false},\"nested2\":{\"type\":\"keyword\",\"doc_value"
       "s\":false}}}}}}");
    EXPECT("GET", "/test1,test2,test3/_field_caps?fields=text,keyword,number,date,geo", NULL, 200,
           "{\"indices\":[\"test1\",\"test2\",\"test3\"],\"fields\":{\"date\":{\"date\":{\"type\":\"date\",\"searchable\":"
           "true,\"aggregatable\":true}},\"geo\":{\"keyword\":{\"type\":\"keyword\",\"searchable\":true,\"aggregata"
           "ble\":true,\"indices\":[\"test3\"]},\"geo_point\":{\"type\":\"geo_point\",\"searchable\":true,\"aggregat"
           "able\":true,\"indices\":[\"test1\",\"test2\"]}},\"number\":{\"double\":{\"type\":\"double\",\"searchable\":"
           "true,\"aggregatable\":true,\"indices\":[\"test1\",\"test2\"]},\"long\":{\"type\":\"long\",\"searchable\":t"
           "rue,\"aggregatable\":true,\"indices\":[\"test3\"]}},\"text\":{\"text\":{\"type\":\"text\",\"searchable\":t"
           "rue,\"aggregatable\":false}},\"keyword\":{\"keyword\":{\"type\":\"keyword\",\"searchable\":true,\"aggre"
           "gatable\":true}}}}");
    EXPECT("GET", "/test1,test2,test3/_field_caps?fields=object*", NULL, 200,
           "{\"indices\":[\"test1\",\"test2\",\"test3\"],\"fields\":{\"object.nested2\":{\"float\":{\"type\":\"float\",\""
           "searchable\":true,\"aggregatable\":false,\"indices\":[\"test1\",\"test2\"],\"non_aggregatable_indice"
           "s\":[\"test1\"]},\"keyword\":{\"type\":\"keyword\",\"searchable\":true,\"aggregatable\":false,\"indices\""
           ":[\"test3\"]}},\"object.nested1\":{\"text\":{\"type\":\"text\",\"searchable\":false,\"aggregatable\":fal"
           "se,\"indices\":[\"test1\",\"test2\"],\"non_searchable_indices\":[\"test1\"]},\"long\":{\"type\":\"long\",\""
           "searchable\":false,\"aggregatable\":true,\"indices\":[\"test3\"]}},\"object\":{\"object\":{\"type\":\"ob"
           "ject\",\"searchable\":false,\"aggregatable\":false}}}}");
    EXPECT("GET", "/_all/_field_caps?fields=n*", NULL, 200,
           "{\"indices\":[\"test1\",\"test2\",\"test3\"],\"fields\":{\"number\":{\"double\":{\"type\":\"double\",\"search"
           "able\":true,\"aggregatable\":true,\"indices\":[\"test1\",\"test2\"]},\"long\":{\"type\":\"long\",\"searcha"
           "ble\":true,\"aggregatable\":true,\"indices\":[\"test3\"]}}}}");
    EXPECT("GET", "/test*/_field_caps?fields=text,keyword,no_such_field,number,geo", NULL, 200,
           "{\"indices\":[\"test1\",\"test2\",\"test3\"],\"fields\":{\"geo\":{\"keyword\":{\"type\":\"keyword\",\"searcha"
           "ble\":true,\"aggregatable\":true,\"indices\":[\"test3\"]},\"geo_point\":{\"type\":\"geo_point\",\"search"
           "able\":true,\"aggregatable\":true,\"indices\":[\"test1\",\"test2\"]}},\"number\":{\"double\":{\"type\":\"d"
           "ouble\",\"searchable\":true,\"aggregatable\":true,\"indices\":[\"test1\",\"test2\"]},\"long\":{\"type\":\""
           "long\",\"searchable\":true,\"aggregatable\":true,\"indices\":[\"test3\"]}},\"text\":{\"text\":{\"type\":\""
           "text\",\"searchable\":true,\"aggregatable\":false}},\"keyword\":{\"keyword\":{\"type\":\"keyword\",\"sea"
           "rchable\":true,\"aggregatable\":true}}}}");
    EXPECT("GET", "/test1,test2,test3/_field_caps?fields=text,misc&include_unmapped=true", NULL, 200,
           "{\"indices\":[\"test1\",\"test2\",\"test3\"],\"fields\":{\"text\":{\"text\":{\"type\":\"text\",\"searchable\":"
           "true,\"aggregatable\":false}},\"misc\":{\"text\":{\"type\":\"text\",\"searchable\":true,\"aggregatable\""
           ":false,\"indices\":[\"test1\"]},\"unmapped\":{\"type\":\"unmapped\",\"searchable\":false,\"aggregatable"
           "\":false,\"indices\":[\"test2\",\"test3\"]}}}}");
    EXPECT("GET", "/test1,test2/_field_caps?fields=object.nested1,date&include_unmapped", NULL, 200,
           "{\"indices\":[\"test1\",\"test2\"],\"fields\":{\"date\":{\"date\":{\"type\":\"date\",\"searchable\":true,\"ag"
           "gregatable\":true,\"indices\":[\"test2\"]},\"unmapped\":{\"type\":\"unmapped\",\"searchable\":false,\"ag"
           "gregatable\":false,\"indices\":[\"test1\"]}},\"object.nested1\":{\"text\":{\"type\":\"text\",\"searchabl"
           "e\":false,\"aggregatable\":false,\"non_searchable_indices\":[\"test1\"]}},\"object\":{\"object\":{\"ty"
           "pe\":\"object\",\"searchable\":false,\"aggregatable\":false}}}}");
    EXPECT("GET", "/test1,test2,test3/_field_caps?fields=misc&include_unmapped=false", NULL, 200,
           "{\"indices\":[\"test1\",\"test2\",\"test3\"],\"fields\":{\"misc\":{\"text\":{\"type\":\"text\",\"searchable\":"
           "true,\"aggregatable\":false}}}}");
}

/* Searchable is the index flag (OpenSearch's isSearchable is isIndexed
 * even where queries fall back to doc values); aggregatable is whether
 * fielddataBuilder succeeds: doc values, text's fielddata, never
 * match_only_text, always constant_keyword; binary is never searchable;
 * token_count is an integer. */
static void test_types(void **s) {
    (void)s;
    OK("PUT", "/t",
       "{\"mappings\":{\"properties\":{\"fd\":{\"type\":\"text\",\"fielddata\":true},\"t_noidx\":{\"type\":\"text\","
       "\"index\":false},\"kw_noidx\":{\"type\":\"keyword\",\"index\":false},\"kw_nodv\":{\"type\":\"keyword\",\"do"
       "c_values\":false},\"l_noidx\":{\"type\":\"long\",\"index\":false},\"l_nodv\":{\"type\":\"long\",\"doc_valu"
       "es\":false},\"flag\":{\"type\":\"boolean\"},\"addr\":{\"type\":\"ip\"},\"blob\":{\"type\":\"binary\"},\"blob_d"
       "v\":{\"type\":\"binary\",\"doc_values\":true},\"ck\":{\"type\":\"constant_keyword\",\"value\":\"x\"},\"wc\":{"
       "\"type\":\"wildcard\"},\"mot\":{\"type\":\"match_only_text\"},\"tc\":{\"type\":\"token_count\",\"analyzer\":"
       "\"standard\"},\"dn\":{\"type\":\"date_nanos\"},\"d\":{\"type\":\"date\",\"doc_values\":false},\"sf\":{\"type\""
       ":\"scaled_float\",\"scaling_factor\":10},\"ul\":{\"type\":\"unsigned_long\"},\"hf\":{\"type\":\"half_floa"
       "t\"},\"geo\":{\"type\":\"geo_point\"}}}}");
    EXPECT("GET", "/t/_field_caps?fields=*&include_unmapped=true", NULL, 200,
           "{\"indices\":[\"t\"],\"fields\":{\"flag\":{\"boolean\":{\"type\":\"boolean\",\"searchable\":true,\"aggregat"
           "able\":true}},\"_index\":{\"_index\":{\"type\":\"_index\",\"searchable\":true,\"aggregatable\":true}},\""
           "kw_noidx\":{\"keyword\":{\"type\":\"keyword\",\"searchable\":false,\"aggregatable\":true}},\"dn\":{\"dat"
           "e_nanos\":{\"type\":\"date_nanos\",\"searchable\":true,\"aggregatable\":true}},\"blob_dv\":{\"binary\":"
           "{\"type\":\"binary\",\"searchable\":false,\"aggregatable\":true}},\"wc\":{\"wildcard\":{\"type\":\"wildca"
           "rd\",\"searchable\":true,\"aggregatable\":true}},\"_ignored\":{\"_ignored\":{\"type\":\"_ignored\",\"se"
           "archable\":true,\"aggregatable\":false}},\"geo\":{\"geo_point\":{\"type\":\"geo_point\",\"searchable\":"
           "true,\"aggregatable\":true}},\"mot\":{\"match_only_text\":{\"type\":\"match_only_text\",\"searchable\""
           ":true,\"aggregatable\":false}},\"sf\":{\"scaled_float\":{\"type\":\"scaled_float\",\"searchable\":true"
           ",\"aggregatable\":true}},\"_data_stream_timestamp\":{\"_data_stream_timestamp\":{\"type\":\"_data_s"
           "tream_timestamp\",\"searchable\":false,\"aggregatable\":false}},\"ul\":{\"unsigned_long\":{\"type\":\""
           "unsigned_long\",\"searchable\":true,\"aggregatable\":true}},\"addr\":{\"ip\":{\"type\":\"ip\",\"searchab"
           "le\":true,\"aggregatable\":true}},\"_version\":{\"_version\":{\"type\":\"_version\",\"searchable\":fals"
           "e,\"aggregatable\":false}},\"_routing\":{\"_routing\":{\"type\":\"_routing\",\"searchable\":true,\"aggr"
           "egatable\":false}},\"t_noidx\":{\"text\":{\"type\":\"text\",\"searchable\":false,\"aggregatable\":false"
           "}},\"_doc_count\":{\"long\":{\"type\":\"long\",\"searchable\":false,\"aggregatable\":false}},\"d\":{\"dat"
           "e\":{\"type\":\"date\",\"searchable\":true,\"aggregatable\":false}},\"ck\":{\"constant_keyword\":{\"type"
           "\":\"constant_keyword\",\"searchable\":true,\"aggregatable\":true}},\"tc\":{\"integer\":{\"type\":\"inte"
           "ger\",\"searchable\":true,\"aggregatable\":true}},\"_seq_no\":{\"_seq_no\":{\"type\":\"_seq_no\",\"searc"
           "hable\":true,\"aggregatable\":true}},\"blob\":{\"binary\":{\"type\":\"binary\",\"searchable\":false,\"ag"
           "gregatable\":false}},\"_nested_path\":{\"_nested_path\":{\"type\":\"_nested_path\",\"searchable\":tru"
           "e,\"aggregatable\":false}},\"_field_names\":{\"_field_names\":{\"type\":\"_field_names\",\"searchable"
           "\":true,\"aggregatable\":false}},\"l_noidx\":{\"long\":{\"type\":\"long\",\"searchable\":false,\"aggrega"
           "table\":true}},\"_source\":{\"_source\":{\"type\":\"_source\",\"searchable\":false,\"aggregatable\":fal"
           "se}},\"_id\":{\"_id\":{\"type\":\"_id\",\"searchable\":true,\"aggregatable\":true}},\"fd\":{\"text\":{\"typ"
           "e\":\"text\",\"searchable\":true,\"aggregatable\":true}},\"hf\":{\"half_float\":{\"type\":\"half_float\","
           "\"searchable\":true,\"aggregatable\":true}},\"kw_nodv\":{\"keyword\":{\"type\":\"keyword\",\"searchable"
           "\":true,\"aggregatable\":false}},\"l_nodv\":{\"long\":{\"type\":\"long\",\"searchable\":true,\"aggregata"
           "ble\":false}}}}");
}

/* The metadata fields of IndicesModule's built-in mappers match
 * wildcards like any field; _doc_count reports its familyTypeName,
 * long. */
static void test_metadata(void **s) {
    (void)s;
    OK("PUT", "/m",
       NULL);
    EXPECT("GET", "/m/_field_caps?fields=*", NULL, 200,
           "{\"indices\":[\"m\"],\"fields\":{\"_ignored\":{\"_ignored\":{\"type\":\"_ignored\",\"searchable\":true,\"ag"
           "gregatable\":false}},\"_routing\":{\"_routing\":{\"type\":\"_routing\",\"searchable\":true,\"aggregata"
           "ble\":false}},\"_seq_no\":{\"_seq_no\":{\"type\":\"_seq_no\",\"searchable\":true,\"aggregatable\":true}"
           "},\"_doc_count\":{\"long\":{\"type\":\"long\",\"searchable\":false,\"aggregatable\":false}},\"_index\":{"
           "\"_index\":{\"type\":\"_index\",\"searchable\":true,\"aggregatable\":true}},\"_nested_path\":{\"_nested"
           "_path\":{\"type\":\"_nested_path\",\"searchable\":true,\"aggregatable\":false}},\"_data_stream_times"
           "tamp\":{\"_data_stream_timestamp\":{\"type\":\"_data_stream_timestamp\",\"searchable\":false,\"aggre"
           "gatable\":false}},\"_field_names\":{\"_field_names\":{\"type\":\"_field_names\",\"searchable\":true,\""
           "aggregatable\":false}},\"_source\":{\"_source\":{\"type\":\"_source\",\"searchable\":false,\"aggregata"
           "ble\":false}},\"_id\":{\"_id\":{\"type\":\"_id\",\"searchable\":true,\"aggregatable\":true}},\"_version\""
           ":{\"_version\":{\"type\":\"_version\",\"searchable\":false,\"aggregatable\":false}}}}");
    EXPECT("GET", "/m/_field_caps?fields=_id,_source,_seq_no", NULL, 200,
           "{\"indices\":[\"m\"],\"fields\":{\"_seq_no\":{\"_seq_no\":{\"type\":\"_seq_no\",\"searchable\":true,\"aggre"
           "gatable\":true}},\"_source\":{\"_source\":{\"type\":\"_source\",\"searchable\":false,\"aggregatable\":f"
           "alse}},\"_id\":{\"_id\":{\"type\":\"_id\",\"searchable\":true,\"aggregatable\":true}}}}");
    EXPECT("GET", "/m/_field_caps?fields=_i*", NULL, 200,
           "{\"indices\":[\"m\"],\"fields\":{\"_ignored\":{\"_ignored\":{\"type\":\"_ignored\",\"searchable\":true,\"ag"
           "gregatable\":false}},\"_index\":{\"_index\":{\"type\":\"_index\",\"searchable\":true,\"aggregatable\":t"
           "rue}},\"_id\":{\"_id\":{\"type\":\"_id\",\"searchable\":true,\"aggregatable\":true}}}}");
}

/* field_caps/20_meta.yml: meta values are merged into sorted sets per
 * key. */
static void test_meta(void **s) {
    (void)s;
    OK("PUT", "/test1",
       "{\"mappings\":{\"properties\":{\"latency\":{\"type\":\"long\",\"meta\":{\"unit\":\"ms\",\"metric_type\":\"gau"
       "ge\"}}}}}");
    OK("PUT", "/test2",
       "{\"mappings\":{\"properties\":{\"latency\":{\"type\":\"long\",\"meta\":{\"unit\":\"ns\",\"metric_type\":\"gau"
       "ge\"}}}}}");
    OK("PUT", "/test3",
       NULL);
    EXPECT("GET", "/test3/_field_caps?fields=latency", NULL, 200,
           "{\"indices\":[\"test3\"],\"fields\":{}}");
    EXPECT("GET", "/test1/_field_caps?fields=latency", NULL, 200,
           "{\"indices\":[\"test1\"],\"fields\":{\"latency\":{\"long\":{\"type\":\"long\",\"searchable\":true,\"aggrega"
           "table\":true,\"meta\":{\"metric_type\":[\"gauge\"],\"unit\":[\"ms\"]}}}}}");
    EXPECT("GET", "/test1,test3/_field_caps?fields=latency", NULL, 200,
           "{\"indices\":[\"test1\",\"test3\"],\"fields\":{\"latency\":{\"long\":{\"type\":\"long\",\"searchable\":true,"
           "\"aggregatable\":true,\"meta\":{\"metric_type\":[\"gauge\"],\"unit\":[\"ms\"]}}}}}");
    EXPECT("GET", "/test1,test2,test3/_field_caps?fields=latency", NULL, 200,
           "{\"indices\":[\"test1\",\"test2\",\"test3\"],\"fields\":{\"latency\":{\"long\":{\"type\":\"long\",\"searchabl"
           "e\":true,\"aggregatable\":true,\"meta\":{\"metric_type\":[\"gauge\"],\"unit\":[\"ms\",\"ns\"]}}}}}");
}

/* Index resolution: aliases become their indices, wildcards expand to
 * open indices, a closed index named explicitly is no error but is left
 * out (its READ block fails its per-index request, which 3.1 drops
 * silently), dynamic mappings. */
static void test_resolution(void **s) {
    (void)s;
    OK("PUT", "/logs-1/_doc/1?refresh=true",
       "{\"msg\":\"hello\",\"n\":1,\"o\":{\"p\":true}}");
    OK("PUT", "/logs-2",
       "{\"mappings\":{\"properties\":{\"n\":{\"type\":\"integer\"}}}}");
    OK("PUT", "/other",
       "{\"mappings\":{\"properties\":{\"n\":{\"type\":\"keyword\"}}}}");
    OK("POST", "/_aliases",
       "{\"actions\":[{\"add\":{\"index\":\"logs-1\",\"alias\":\"al\"}},{\"add\":{\"index\":\"other\",\"alias\":\"al\"}}"
       "]}");
    EXPECT("GET", "/logs-1/_field_caps?fields=msg*,o.*", NULL, 200,
           "{\"indices\":[\"logs-1\"],\"fields\":{\"msg\":{\"text\":{\"type\":\"text\",\"searchable\":true,\"aggregatab"
           "le\":false}},\"o.p\":{\"boolean\":{\"type\":\"boolean\",\"searchable\":true,\"aggregatable\":true}},\"ms"
           "g.keyword\":{\"keyword\":{\"type\":\"keyword\",\"searchable\":true,\"aggregatable\":true}},\"o\":{\"obje"
           "ct\":{\"type\":\"object\",\"searchable\":false,\"aggregatable\":false}}}}");
    EXPECT("GET", "/al/_field_caps?fields=n", NULL, 200,
           "{\"indices\":[\"logs-1\",\"other\"],\"fields\":{\"n\":{\"keyword\":{\"type\":\"keyword\",\"searchable\":true"
           ",\"aggregatable\":true,\"indices\":[\"other\"]},\"long\":{\"type\":\"long\",\"searchable\":true,\"aggrega"
           "table\":true,\"indices\":[\"logs-1\"]}}}}");
    EXPECT("GET", "/logs-*/_field_caps?fields=n", NULL, 200,
           "{\"indices\":[\"logs-1\",\"logs-2\"],\"fields\":{\"n\":{\"integer\":{\"type\":\"integer\",\"searchable\":tru"
           "e,\"aggregatable\":true,\"indices\":[\"logs-2\"]},\"long\":{\"type\":\"long\",\"searchable\":true,\"aggre"
           "gatable\":true,\"indices\":[\"logs-1\"]}}}}");
    EXPECT("GET", "/_field_caps?fields=n", NULL, 200,
           "{\"indices\":[\"logs-1\",\"logs-2\",\"other\"],\"fields\":{\"n\":{\"integer\":{\"type\":\"integer\",\"searcha"
           "ble\":true,\"aggregatable\":true,\"indices\":[\"logs-2\"]},\"keyword\":{\"type\":\"keyword\",\"searchabl"
           "e\":true,\"aggregatable\":true,\"indices\":[\"other\"]},\"long\":{\"type\":\"long\",\"searchable\":true,\""
           "aggregatable\":true,\"indices\":[\"logs-1\"]}}}}");
    OK("POST", "/logs-2/_close",
       NULL);
    EXPECT("GET", "/logs-*/_field_caps?fields=n", NULL, 200,
           "{\"indices\":[\"logs-1\"],\"fields\":{\"n\":{\"long\":{\"type\":\"long\",\"searchable\":true,\"aggregatable"
           "\":true}}}}");
    EXPECT("GET", "/logs-2/_field_caps?fields=n", NULL, 200,
           "{\"indices\":[],\"fields\":{}}");
    EXPECT("GET", "/logs-*/_field_caps?fields=n&expand_wildcards=all", NULL, 200,
           "{\"indices\":[\"logs-1\"],\"fields\":{\"n\":{\"long\":{\"type\":\"long\",\"searchable\":true,\"aggregatable"
           "\":true}}}}");
    EXPECT("GET", "/logs-1,logs-2/_field_caps?fields=n", NULL, 200,
           "{\"indices\":[\"logs-1\"],\"fields\":{\"n\":{\"long\":{\"type\":\"long\",\"searchable\":true,\"aggregatable"
           "\":true}}}}");
}

/* index_filter: match_all keeps every index, match_none none
 * (SearchService.canMatch); other queries are refused; body errors are
 * RestActions.getQueryContent's. */
static void test_index_filter(void **s) {
    (void)s;
    OK("PUT", "/a",
       "{\"mappings\":{\"properties\":{\"n\":{\"type\":\"long\"}}}}");
    EXPECT("POST", "/a/_field_caps?fields=n", "{\"index_filter\":{\"match_all\":{}}}", 200,
           "{\"indices\":[\"a\"],\"fields\":{\"n\":{\"long\":{\"type\":\"long\",\"searchable\":true,\"aggregatable\":tru"
           "e}}}}");
    EXPECT("POST", "/a/_field_caps?fields=n", "{\"index_filter\":{\"match_none\":{}}}", 200,
           "{\"indices\":[],\"fields\":{}}");
    EXPECT("POST", "/a/_field_caps?fields=n", "{}", 200,
           "{\"indices\":[\"a\"],\"fields\":{\"n\":{\"long\":{\"type\":\"long\",\"searchable\":true,\"aggregatable\":tru"
           "e}}}}");
    EXPECT("POST", "/a/_field_caps?fields=n", "{\"index_filter\":{\"range\":{\"n\":{\"gte\":1}}}}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"unsupported_operation_exception\",\"reason\":\"trove supports"
           " [index_filter] of _field_caps only as match_all or match_none (OpenSearch keeps an index "
           "when the filter cannot rewrite to match_none on it)\"}],\"type\":\"unsupported_operation_excep"
           "tion\",\"reason\":\"trove supports [index_filter] of _field_caps only as match_all or match_no"
           "ne (OpenSearch keeps an index when the filter cannot rewrite to match_none on it)\"},\"statu"
           "s\":400}");
    EXPECT("POST", "/a/_field_caps?fields=n", "{\"query\":{\"match_all\":{}}}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"parsing_exception\",\"reason\":\"request does not support [qu"
           "ery]\",\"line\":1,\"col\":2}],\"type\":\"parsing_exception\",\"reason\":\"request does not support [qu"
           "ery]\",\"line\":1,\"col\":2},\"status\":400}");
    EXPECT("POST", "/a/_field_caps?fields=n", "[]", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"parsing_exception\",\"reason\":\"Expected [START_OBJECT] but "
           "found [START_ARRAY]\",\"line\":1,\"col\":1}],\"type\":\"parsing_exception\",\"reason\":\"Expected [STA"
           "RT_OBJECT] but found [START_ARRAY]\",\"line\":1,\"col\":1},\"status\":400}");
    EXPECT("POST", "/a/_field_caps?fields=n", "{\"index_filter\":\"x\"}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"parsing_exception\",\"reason\":\"[_na] query malformed, must "
           "start with start_object\",\"line\":1,\"col\":17}],\"type\":\"parsing_exception\",\"reason\":\"[_na] qu"
           "ery malformed, must start with start_object\",\"line\":1,\"col\":17},\"status\":400}");
    EXPECT("POST", "/a/_field_caps?fields=n", "{bad", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"parsing_exception\",\"reason\":\"Failed to parse\",\"line\":1,\"c"
           "ol\":2}],\"type\":\"parsing_exception\",\"reason\":\"Failed to parse\",\"line\":1,\"col\":2,\"caused_by\""
           ":{\"type\":\"json_parse_exception\",\"reason\":\"Unexpected character ('b' (code 98)): was expect"
           "ing double-quote to start field name\\n at [Source: REDACTED (`StreamReadFeature.INCLUDE_SO"
           "URCE_IN_LOCATION` disabled); line: 1, column: 2]\"}},\"status\":400}");
}

/* Errors in the order OpenSearch raises them: the fields setter's
 * IllegalArgumentException (the REST layer never reaches
 * FieldCapabilitiesRequest.validate), IndicesOptions, include_unmapped,
 * a missing index. */
static void test_errors(void **s) {
    (void)s;
    EXPECT("GET", "/_field_caps?fields=*", NULL, 200,
           "{\"indices\":[],\"fields\":{}}");
    OK("PUT", "/a",
       NULL);
    EXPECT("GET", "/_field_caps", NULL, 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"illegal_argument_exception\",\"reason\":\"specified fields ca"
           "n't be null or empty\"}],\"type\":\"illegal_argument_exception\",\"reason\":\"specified fields can"
           "'t be null or empty\"},\"status\":400}");
    EXPECT("GET", "/a/_field_caps?fields=", NULL, 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"illegal_argument_exception\",\"reason\":\"specified fields ca"
           "n't be null or empty\"}],\"type\":\"illegal_argument_exception\",\"reason\":\"specified fields can"
           "'t be null or empty\"},\"status\":400}");
    EXPECT("GET", "/a/_field_caps?fields=,", NULL, 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"illegal_argument_exception\",\"reason\":\"specified fields ca"
           "n't be null or empty\"}],\"type\":\"illegal_argument_exception\",\"reason\":\"specified fields can"
           "'t be null or empty\"},\"status\":400}");
    EXPECT("GET", "/nope/_field_caps?fields=*", NULL, 404,
           "{\"error\":{\"root_cause\":[{\"type\":\"index_not_found_exception\",\"reason\":\"no such index [nope]"
           "\",\"index\":\"nope\",\"resource.id\":\"nope\",\"resource.type\":\"index_or_alias\",\"index_uuid\":\"X\"}],"
           "\"type\":\"index_not_found_exception\",\"reason\":\"no such index [nope]\",\"index\":\"nope\",\"resourc"
           "e.id\":\"nope\",\"resource.type\":\"index_or_alias\",\"index_uuid\":\"X\"},\"status\":404}");
    EXPECT("GET", "/nope,a/_field_caps?fields=_index&ignore_unavailable=true", NULL, 200,
           "{\"indices\":[\"a\"],\"fields\":{\"_index\":{\"_index\":{\"type\":\"_index\",\"searchable\":true,\"aggregat"
           "able\":true}}}}");
    EXPECT("GET", "/nope*/_field_caps?fields=n", NULL, 200,
           "{\"indices\":[],\"fields\":{}}");
    EXPECT("GET", "/nope*/_field_caps?fields=n&allow_no_indices=false", NULL, 404,
           "{\"error\":{\"root_cause\":[{\"type\":\"index_not_found_exception\",\"reason\":\"no such index [nope*"
           "]\",\"index\":\"nope*\",\"resource.id\":\"nope*\",\"resource.type\":\"index_or_alias\",\"index_uuid\":\"X\""
           "}],\"type\":\"index_not_found_exception\",\"reason\":\"no such index [nope*]\",\"index\":\"nope*\",\"re"
           "source.id\":\"nope*\",\"resource.type\":\"index_or_alias\",\"index_uuid\":\"X\"},\"status\":404}");
    EXPECT("GET", "/a/_field_caps?fields=n&expand_wildcards=bogus", NULL, 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"illegal_argument_exception\",\"reason\":\"No valid expand wil"
           "dcard value [bogus]\"}],\"type\":\"illegal_argument_exception\",\"reason\":\"No valid expand wildc"
           "ard value [bogus]\"},\"status\":400}");
    EXPECT("GET", "/a/_field_caps?fields=n&include_unmapped=maybe", NULL, 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"illegal_argument_exception\",\"reason\":\"Failed to parse val"
           "ue [maybe] as only [true] or [false] are allowed.\"}],\"type\":\"illegal_argument_exception\",\""
           "reason\":\"Failed to parse value [maybe] as only [true] or [false] are allowed.\"},\"status\":4"
           "00}");
    EXPECT("GET", "/a/_field_caps?fields=n&field=x", NULL, 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"illegal_argument_exception\",\"reason\":\"request [/a/_field_"
           "caps] contains unrecognized parameter: [field] -> did you mean [fields]?\"}],\"type\":\"illega"
           "l_argument_exception\",\"reason\":\"request [/a/_field_caps] contains unrecognized parameter: "
           "[field] -> did you mean [fields]?\"},\"status\":400}");
    EXPECT("PUT", "/a/_field_caps?fields=n", NULL, 405,
           "{\"error\":\"Incorrect HTTP method for uri [/a/_field_caps?fields=n] and method [PUT], allowe"
           "d: [GET, POST]\",\"status\":405}");
}

/* Allocations fail after n = 0, 1, 2, ... for each request until it
 * succeeds: every attempt answers TROVE_ENOMEM with no body or a complete
 * response; the sanitizer build checks that no path leaks. */
static void test_oom(void **s) {
    (void)s;
    OK("PUT", "/o1",
       "{\"mappings\":{\"properties\":{\"t\":{\"type\":\"text\",\"fields\":{\"k\":{\"type\":\"keyword\"}}},"
       "\"u\":{\"properties\":{\"v\":{\"properties\":{\"w\":{\"type\":\"long\",\"meta\":{\"a\":\"b\"}}}}}}}}}");
    OK("PUT", "/o2", "{\"mappings\":{\"properties\":{\"t\":{\"type\":\"keyword\"},\"x\":{\"type\":\"ip\"}}}}");
    static const char *const paths[] = {
        "/o*/_field_caps?fields=*&include_unmapped=true",
        "/o1,o2/_field_caps?fields=t,u.v.w,x,_id",
        "/nope/_field_caps?fields=*",
    };
    long failures = 0;
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
        bool done = false;
        for (long n = 0; !done && n < 100000; n++) {
            trove_response r;
            const char *body = "{\"index_filter\":{\"match_all\":{}}}";
            tv_alloc_fail_after(n);
            int rc = trove_request(N, "POST", paths[i], body, strlen(body), &r);
            tv_alloc_fail_after(-1);
            if (rc != 0) {
                assert_int_equal(rc, TROVE_ENOMEM);
                assert_null(r.body);
                failures++;
                continue;
            }
            assert_non_null(r.body);
            done = r.status < 500;
            trove_response_fini(&r);
        }
        assert_true(done);
    }
    assert_true(failures > 10);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_one_index, setup, teardown),
        cmocka_unit_test_setup_teardown(test_conflicts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_types, setup, teardown),
        cmocka_unit_test_setup_teardown(test_metadata, setup, teardown),
        cmocka_unit_test_setup_teardown(test_meta, setup, teardown),
        cmocka_unit_test_setup_teardown(test_resolution, setup, teardown),
        cmocka_unit_test_setup_teardown(test_index_filter, setup, teardown),
        cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_oom, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
