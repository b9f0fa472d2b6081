/* test_api_script_search.c — Painless in searches through trove_request:
 * the doc accessor's types and errors (painless 50_script_doc_values:
 * dates and geo points too),
 * script_fields with params, params._source and ignore_failure, the
 * index.max_script_fields limit (search/30_limits), the script and
 * script_score queries (painless 30_search, 80_script_score), function
 * score's script_score function, the score context's ScoreScriptUtils
 * (decays, saturation, sigmoid, randomScore), bucket_script and
 * bucket_selector, scripts as the values source of metric aggregations,
 * and the search_phase_execution_exception around a script's
 * ScriptException. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#define API_TEST_MASK_TOOK
#include "api_test.h"

#define FP "?filter_path=hits.hits._id,hits.hits._score,hits.hits.fields,hits.hits._source"

static void load(void) {
    OK("PUT", "/s",
       "{\"mappings\":{\"properties\":{\"n\":{\"type\":\"long\"},\"i\":{\"type\":\"integer\"},\"d\":{\"type\":\"double\"},"
       "\"f\":{\"type\":\"float\"},\"k\":{\"type\":\"keyword\"},\"t\":{\"type\":\"text\"},\"b\":{\"type\":\"boolean\"},"
       "\"ip\":{\"type\":\"ip\"},\"dt\":{\"type\":\"date\"},\"nodv\":{\"type\":\"keyword\",\"doc_values\":false}}}}");
    OK("PUT", "/s/_doc/1",
       "{\"n\":1,\"i\":2,\"d\":1.5,\"f\":0.5,\"k\":\"a\",\"t\":\"hello world\",\"b\":true,\"ip\":\"10.0.0.1\","
       "\"dt\":\"2020-01-01\"}");
    OK("PUT", "/s/_doc/2", "{\"n\":5,\"k\":[\"c\",\"b\"],\"t\":\"hello\",\"b\":false}");
    OK("PUT", "/s/_doc/3?refresh=true", "{\"k\":\"z\"}");
}

static void test_doc_values(void **s) {
    (void)s;
    load();
    /* Longs, Doubles (float widened), Strings sorted, Booleans, ip text */
    EXPECT("POST", "/s/_search" FP,
           "{\"query\":{\"ids\":{\"values\":[\"1\"]}},\"script_fields\":{"
           "\"n\":{\"script\":\"doc['n'].value + 1\"},\"i\":{\"script\":\"doc['i'].value\"},"
           "\"d\":{\"script\":\"doc['d'].value * 2\"},\"f\":{\"script\":\"doc['f'].value\"},"
           "\"b\":{\"script\":\"doc['b'].value\"},\"ip\":{\"script\":\"doc['ip'].value\"},"
           "\"sz\":{\"script\":\"doc['k'].size() + ':' + doc['k'].empty + ':' + doc['k'][0] + doc['k'].get(0)\"}}}",
           200,
           "{\"hits\":{\"hits\":[{\"_id\":\"1\",\"_score\":1.0,\"fields\":{\"b\":[true],\"d\":[3.0],\"f\":[0.5],"
           "\"ip\":[\"10.0.0.1\"],\"sz\":[\"1:false:aa\"],\"i\":[2],\"n\":[2]}}]}}");
    /* a multi-valued keyword is a sorted list; a list result is the values */
    EXPECT("POST", "/s/_search" FP,
           "{\"query\":{\"ids\":{\"values\":[\"2\"]}},\"script_fields\":{\"k\":{\"script\":\"doc['k']\"},"
           "\"v\":{\"script\":\"doc['k'].values\"},\"none\":{\"script\":\"doc['i'].size() == 0 ? null : 1\"}}}",
           200,
           "{\"hits\":{\"hits\":[{\"_id\":\"2\",\"_score\":1.0,\"fields\":{\"v\":[\"b\",\"c\"],\"k\":[\"b\",\"c\"],"
           "\"none\":[null]}}]}}");
    /* .value of a missing value */
    EXPECT_HAS("POST", "/s/_search", "{\"query\":{\"ids\":{\"values\":[\"3\"]}},\"script_fields\":{\"x\":{\"script\":\"doc['n'].value\"}}}",
               400,
               "\"caused_by\":{\"type\":\"illegal_state_exception\",\"reason\":\"A document doesn't have a value for a "
               "field! Use doc[<field>].size()==0 to check if a document is missing a field!\"}");
    /* a field the mapping lacks, text without field data, no doc values */
    EXPECT_HAS("POST", "/s/_search", "{\"script_fields\":{\"x\":{\"script\":\"doc['nope'].value\"}}}", 400,
               "\"caused_by\":{\"type\":\"illegal_argument_exception\",\"reason\":\"No field found for [nope] in mapping\"}");
    EXPECT_HAS("POST", "/s/_search", "{\"script_fields\":{\"x\":{\"script\":\"doc['t'].value\"}}}", 400,
               "\"reason\":\"Text fields are not optimised for operations that require per-document field data");
    EXPECT_HAS("POST", "/s/_search", "{\"script_fields\":{\"x\":{\"script\":\"doc['nodv'].value\"}}}", 400,
               "\"reason\":\"Can't load fielddata on [nodv] because fielddata is unsupported on fields of type [keyword]. "
               "Use doc values instead.\"");
    /* unsigned longs have no BigInteger here: said, not guessed */
    OK("PUT", "/ul", "{\"mappings\":{\"properties\":{\"u\":{\"type\":\"unsigned_long\"}}}}");
    OK("PUT", "/ul/_doc/1?refresh=true", "{\"u\":1}");
    EXPECT_HAS("POST", "/ul/_search", "{\"script_fields\":{\"x\":{\"script\":\"doc['u'].value\"}}}", 400,
               "\"type\":\"unsupported_operation_exception\",\"reason\":\"trove does not support the doc values of "
               "[unsigned_long] fields in scripts (field [u])\"");
}

/* Dates (JodaCompatibleZonedDateTime at UTC) and GeoPoints in doc[...]
 * (painless 50_script_doc_values: the date prints as strict_date_time,
 * the point's degrees are the doc values' quantized ones). */
static void test_date_geo_doc_values(void **s) {
    (void)s;
    OK("PUT", "/g",
       "{\"mappings\":{\"properties\":{\"date\":{\"type\":\"date\"},\"dn\":{\"type\":\"date_nanos\"},"
       "\"geo_point\":{\"type\":\"geo_point\"}}}}");
    OK("PUT", "/g/_doc/1",
       "{\"date\":\"2017-01-01T12:11:12\",\"dn\":\"2017-01-01T12:11:12.123456789Z\",\"geo_point\":\"41.12,-71.34\"}");
    OK("PUT", "/g/_doc/2?refresh=true", "{\"date\":[\"2020-02-29T23:59:59.5Z\",\"1969-12-31T00:00:00Z\"]}");
    EXPECT("POST", "/g/_search" FP,
           "{\"query\":{\"ids\":{\"values\":[\"1\"]}},\"script_fields\":{"
           "\"v\":{\"script\":\"doc.date.value\"},\"g\":{\"script\":\"doc.date.get(0)\"},"
           "\"n\":{\"script\":\"doc['dn'].value\"},\"p\":{\"script\":\"doc['geo_point'].value\"}}}",
           200,
           "{\"hits\":{\"hits\":[{\"_id\":\"1\",\"_score\":1.0,\"fields\":{\"p\":[{\"lat\":41.1199999647215,"
           "\"lon\":-71.34000004269183}],\"v\":[\"2017-01-01T12:11:12.000Z\"],\"g\":[\"2017-01-01T12:11:12.000Z\"],"
           "\"n\":[\"2017-01-01T12:11:12.123456789Z\"]}}]}}");
    /* the ZonedDateTime getters; 2017-01-01 was a Sunday; toString is strict_date_time */
    EXPECT("POST", "/g/_search" FP,
           "{\"query\":{\"ids\":{\"values\":[\"1\"]}},\"script_fields\":{\"x\":{\"script\":"
           "\"def d = doc['date'].value; return d.getYear() + '/' + d.monthValue + '/' + d.getDayOfMonth() + ' ' + "
           "d.getHour() + ':' + d.minute + ':' + d.getSecond() + ' ' + d.getDayOfWeek() + ' ' + d.dayOfWeek.getValue() + "
           "' ' + d.getDayOfYear() + ' ' + d.toInstant().toEpochMilli() + ' ' + doc['dn'].value.nano + ' ' + d\"}}}",
           200,
           "{\"hits\":{\"hits\":[{\"_id\":\"1\",\"_score\":1.0,\"fields\":{\"x\":[\"2017/1/1 12:11:12 SUNDAY 7 1 "
           "1483272672000 123456789 2017-01-01T12:11:12.000Z\"]}}]}}");
    /* values sorted; a leap day (day 60); before the epoch; get past the end */
    EXPECT("POST", "/g/_search" FP,
           "{\"query\":{\"ids\":{\"values\":[\"2\"]}},\"script_fields\":{\"x\":{\"script\":"
           "\"doc.date.get(0) + ' ' + doc.date[1] + ' ' + doc.date[1].getDayOfYear() + ' ' + doc.date[1].getNano() + ' ' + "
           "doc.date[0].toInstant().toEpochMilli() + ' ' + doc.date[0].isBefore(doc.date[1])\"}}}",
           200,
           "{\"hits\":{\"hits\":[{\"_id\":\"2\",\"_score\":1.0,\"fields\":{\"x\":[\"1969-12-31T00:00:00.000Z "
           "2020-02-29T23:59:59.500Z 60 500000000 -86400000 true\"]}}]}}");
    EXPECT_HAS("POST", "/g/_search", "{\"query\":{\"ids\":{\"values\":[\"2\"]}},\"script_fields\":{\"x\":{\"script\":"
               "\"doc.date.get(2)\"}}}", 400,
               "\"caused_by\":{\"type\":\"index_out_of_bounds_exception\",\"reason\":\"attempted to fetch the [2] date "
               "when there are only [2] dates.\"}");
    /* GeoPoints: lat/lon of the first point, distances (GeoUtils.arcDistance =
     * SloppyMath.haversinMeters; planeDistance), a missing point */
    EXPECT("POST", "/g/_search" FP,
           "{\"query\":{\"ids\":{\"values\":[\"1\"]}},\"script_fields\":{\"x\":{\"script\":"
           "\"def g = doc['geo_point']; return g.lat + ' ' + g.getLon() + ' ' + g.value.lat + ' ' + g.size() + ' ' + g.empty + "
           "' ' + (long) g.arcDistance(40, -70) + ' ' + (long) g.planeDistance(40, -70) + ' ' + g.value\"}}}",
           200,
           "{\"hits\":{\"hits\":[{\"_id\":\"1\",\"_score\":1.0,\"fields\":{\"x\":[\"41.1199999647215 "
           "-71.34000004269183 41.1199999647215 1 false 168293 168297 41.1199999647215, -71.34000004269183\"]}}]}}");
    EXPECT("POST", "/g/_search" FP,
           "{\"query\":{\"ids\":{\"values\":[\"2\"]}},\"script_fields\":{\"x\":{\"script\":"
           "\"doc['geo_point'].arcDistanceWithDefault(1, 2, 7.5) + ' ' + doc['geo_point'].empty\"}}}",
           200, "{\"hits\":{\"hits\":[{\"_id\":\"2\",\"_score\":1.0,\"fields\":{\"x\":[\"7.5 true\"]}}]}}");
    EXPECT_HAS("POST", "/g/_search", "{\"query\":{\"ids\":{\"values\":[\"2\"]}},\"script_fields\":{\"x\":{\"script\":"
               "\"doc['geo_point'].lat\"}}}", 400,
               "\"caused_by\":{\"type\":\"illegal_state_exception\",\"reason\":\"A document doesn't have a value for a "
               "field! Use doc[<field>].size()==0 to check if a document is missing a field!\"}");
    /* what trove leaves out of ZonedDateTime answers 400 naming it; getMillis
     * is gone from OpenSearch's JodaCompatibleZonedDateTime */
    EXPECT_HAS("POST", "/g/_search", "{\"query\":{\"ids\":{\"values\":[\"1\"]}},\"script_fields\":{\"x\":{\"script\":"
               "\"doc.date.value.plusDays(1)\"}}}", 400,
               "\"caused_by\":{\"type\":\"unsupported_operation_exception\",\"reason\":\"trove does not support "
               "[JodaCompatibleZonedDateTime.plusDays] in Painless scripts\"}");
    EXPECT_HAS("POST", "/g/_search", "{\"query\":{\"ids\":{\"values\":[\"1\"]}},\"script_fields\":{\"x\":{\"script\":"
               "\"doc.date.value.getMillis()\"}}}", 400,
               "\"reason\":\"dynamic method [org.opensearch.script.JodaCompatibleZonedDateTime, getMillis/0] not found\"");
    /* a last statement that is a call returns its value */
    EXPECT("POST", "/g/_search" FP,
           "{\"query\":{\"ids\":{\"values\":[\"2\"]}},\"script_fields\":{\"x\":{\"script\":\"doc['date'].size()\"}}}",
           200, "{\"hits\":{\"hits\":[{\"_id\":\"2\",\"_score\":1.0,\"fields\":{\"x\":[2]}}]}}");
}

#define DK_SCORE(src, want)                                                                                             \
    EXPECT("POST", "/dk/_search?filter_path=hits.hits._score",                                                        \
           "{\"query\":{\"script_score\":{\"query\":{\"ids\":{\"values\":[\"1\"]}},\"script\":\"" src "\"}}}", 200, \
           "{\"hits\":{\"hits\":[{\"_score\":" want "}]}}")

/* ScoreScriptUtils in script_score (painless 80_script_score): each
 * decay's value on a known document against OpenSearch's formula. The
 * scores print as the float of the double the script returns. */
static void test_score_functions(void **s) {
    (void)s;
    OK("PUT", "/dk",
       "{\"mappings\":{\"properties\":{\"num\":{\"type\":\"integer\"},\"dt\":{\"type\":\"date\"},"
       "\"loc\":{\"type\":\"geo_point\"},\"k\":{\"type\":\"keyword\"}}}}");
    OK("PUT", "/dk/_doc/1?refresh=true",
       "{\"num\":40,\"dt\":\"2018-01-01T02:00:00Z\",\"loc\":{\"lat\":40.24,\"lon\":-70.24},\"k\":\"a\"}");
    /* numeric: origin 20, scale 10, offset 5, decay 0.5, value 40: distance = |40 - 20| - 5 = 15
     *   linear: scaling = 10 / (1 - 0.5) = 20; (20 - 15) / 20 = 0.25
     *   exp:    exp(ln(0.5) / 10 * 15) = 0.5^1.5 = 0.35355339...
     *   gauss:  exp(0.5 * 15^2 / (0.5 * 10^2 / ln(0.5))) = 0.5^2.25 = 0.21022410... */
    DK_SCORE("decayNumericLinear(20, 10, 5, 0.5, doc['num'].value)", "0.25");
    DK_SCORE("decayNumericExp(20, 10, 5, 0.5, doc['num'].value)", "0.35355338");
    DK_SCORE("decayNumericGauss(20, 10, 5, 0.5, doc['num'].value)", "0.2102241");
    /* dates: origin 2018-01-01T00:00Z, scale 1h = 3,600,000 ms, offset 30m, value 02:00:
     *   distance = 7,200,000 - 1,800,000 = 5,400,000 ms = 1.5 scales: the numbers above */
    DK_SCORE("decayDateLinear('2018-01-01T00:00:00Z', '1h', '30m', 0.5, doc['dt'].value)", "0.25");
    DK_SCORE("decayDateExp('2018-01-01T00:00:00Z', '1h', '30m', 0.5, doc['dt'].value)", "0.35355338");
    DK_SCORE("decayDateGauss('2018-01-01T00:00:00Z', '1h', '30m', 0.5, doc['dt'].value)", "0.2102241");
    /* date math in the origin: 2018-01-01||+1h is 01:00; distance 1h - 0 = 1 scale of 2h: linear
     * scaling 2h / 0.5 = 4h, (4 - 1) / 4 = 0.75 */
    DK_SCORE("decayDateLinear('2018-01-01||+1h', '2h', '0', 0.5, doc['dt'].value)", "0.75");
    /* geo: origin (40, -70), the point (40.23999996017665, -70.24000005796552) as doc values hold it:
     *   haversine distance 33,595.2784 m (R = 6,371,008.7714), less offset 1km = 32,595.2784 m; scale 20km
     *   linear: scaling 40,000; (40,000 - 32,595.2784) / 40,000 = 0.18511803...
     *   exp:    0.5^(32,595.2784 / 20,000) = 0.32314106...
     *   gauss:  0.5^((32,595.2784 / 20,000)^2) = 0.15864451... */
    DK_SCORE("decayGeoLinear('40, -70', '20km', '1km', 0.5, doc['loc'].value)", "0.18511803");
    DK_SCORE("decayGeoExp('40, -70', '20km', '1km', 0.5, doc['loc'].value)", "0.32314107");
    DK_SCORE("decayGeoGauss('40, -70', '20km', '1km', 0.5, doc['loc'].value)", "0.15864451");
    /* saturation(40, 10) = 40 / 50; sigmoid(40, 20, 2) = 1600 / (400 + 1600) */
    DK_SCORE("saturation(doc['num'].value, 10)", "0.8");
    DK_SCORE("sigmoid(doc['num'].value, 20, 2)", "0.8");
    /* randomScore: murmur3 of the doc's base id (or the field's value as text) with
     * mix32(salt ^ seed), salt = "dk".hashCode() << 10; the lower 24 bits / 2^24 */
    DK_SCORE("randomScore(7)", "0.42581522");
    DK_SCORE("randomScore(7, 'k')", "0.90110195");
    /* a class binding is made at its first call of a segment: its constructor's arguments are not
     * evaluated again (doc 2 has no num, yet its origin is doc 1's 40: |35 - 40| = 5, (20 - 5) / 20) */
    OK("PUT", "/bk/_doc/1", "{\"num\":40}");
    OK("PUT", "/bk/_doc/2?refresh=true", "{\"k\":\"b\"}");
    EXPECT("POST", "/bk/_search?filter_path=hits.hits._id,hits.hits._score",
           "{\"query\":{\"script_score\":{\"query\":{\"match_all\":{}},\"script\":"
           "\"decayNumericLinear(doc['num'].value, 10, 0, 0.5, 35)\"}}}",
           200, "{\"hits\":{\"hits\":[{\"_id\":\"1\",\"_score\":0.75},{\"_id\":\"2\",\"_score\":0.75}]}}");
    /* function_score's script_score is the same context */
    EXPECT("POST", "/dk/_search?filter_path=hits.hits._score",
           "{\"query\":{\"function_score\":{\"query\":{\"match_all\":{}},\"boost_mode\":\"replace\",\"script_score\":{"
           "\"script\":{\"source\":\"decayNumericLinear(params.o, 10, 5, 0.5, doc['num'].value)\",\"params\":{\"o\":20}}}}}}",
           200, "{\"hits\":{\"hits\":[{\"_score\":0.25}]}}");
    /* errors: the origin's date math has no "now"; a bad scale; a geohash; a wrong type */
    EXPECT_HAS("POST", "/dk/_search",
               "{\"query\":{\"script_score\":{\"query\":{\"match_all\":{}},\"script\":\"decayDateExp('now', '1h', '0', "
               "0.5, doc['dt'].value)\"}}}",
               400, "\"caused_by\":{\"type\":\"parse_exception\",\"reason\":\"could not read the current timestamp\"}");
    EXPECT_HAS("POST", "/dk/_search",
               "{\"query\":{\"script_score\":{\"query\":{\"match_all\":{}},\"script\":\"decayDateExp('2018-01-01', "
               "'1x', '0', 0.5, doc['dt'].value)\"}}}",
               400, "\"reason\":\"failed to parse setting [DecayDateExp.scale] with value [1x] as a time value: unit is "
                    "missing or unrecognized\"");
    EXPECT_HAS("POST", "/dk/_search",
               "{\"query\":{\"script_score\":{\"query\":{\"match_all\":{}},\"script\":\"decayGeoExp('40,-70', "
               "'xkm', '0', 0.5, doc['loc'].value)\"}}}",
               400, "\"caused_by\":{\"type\":\"number_format_exception\",\"reason\":\"For input string: \\\"x\\\"\"}");
    EXPECT_HAS("POST", "/dk/_search",
               "{\"query\":{\"script_score\":{\"query\":{\"match_all\":{}},\"script\":\"decayGeoExp('40,-70', "
               "'1km', '0', 0.5, doc['dt'].value)\"}}}",
               400, "\"reason\":\"class org.opensearch.script.JodaCompatibleZonedDateTime cannot be cast to class "
                    "org.opensearch.common.geo.GeoPoint (org.opensearch.script.JodaCompatibleZonedDateTime and "
                    "org.opensearch.common.geo.GeoPoint are in unnamed module of loader 'app')\"");
    /* outside the score context (and with a wrong arity) the names are unknown calls */
    EXPECT_HAS("POST", "/dk/_search",
               "{\"script_fields\":{\"x\":{\"script\":\"decayNumericLinear(1, 2, 3, 0.5, doc['num'].value)\"}}}", 400,
               "\"reason\":\"compile error\",\"script_stack\":[\"decayNumericLinear(1, 2,  ...\",\"^---- HERE\"]");
    EXPECT_HAS("POST", "/dk/_search",
               "{\"script_fields\":{\"x\":{\"script\":\"decayNumericLinear(1, 2, 3, 0.5, doc['num'].value)\"}}}", 400,
               "\"caused_by\":{\"type\":\"illegal_argument_exception\",\"reason\":\"Unknown call [decayNumericLinear] "
               "with [5] arguments.\"}");
    EXPECT_HAS("POST", "/dk/_search",
               "{\"query\":{\"script\":{\"script\":\"saturation(1, 2) > 0\"}}}", 400,
               "\"reason\":\"Unknown call [saturation] with [2] arguments.\"");
    EXPECT_HAS("POST", "/dk/_search",
               "{\"query\":{\"script_score\":{\"query\":{\"match_all\":{}},\"script\":\"saturation(1)\"}}}", 400,
               "\"reason\":\"Unknown call [saturation] with [1] arguments.\"");
}

static void test_script_fields(void **s) {
    (void)s;
    load();
    /* params, params._source; _source is left out unless asked for */
    EXPECT("POST", "/s/_search" FP,
           "{\"query\":{\"ids\":{\"values\":[\"2\"]}},\"script_fields\":{\"x\":{\"script\":{\"source\":"
           "\"params._source.n * params.m\",\"params\":{\"m\":3}}}}}",
           200, "{\"hits\":{\"hits\":[{\"_id\":\"2\",\"_score\":1.0,\"fields\":{\"x\":[15]}}]}}");
    EXPECT("POST", "/s/_search" FP,
           "{\"_source\":[\"b\"],\"query\":{\"ids\":{\"values\":[\"2\"]}},\"script_fields\":{\"x\":{\"script\":\"'v'\"}}}",
           200, "{\"hits\":{\"hits\":[{\"_id\":\"2\",\"_score\":1.0,\"_source\":{\"b\":false},\"fields\":{\"x\":[\"v\"]}}]}}");
    /* ignore_failure: the failing field is left out */
    EXPECT("POST", "/s/_search" FP,
           "{\"query\":{\"ids\":{\"values\":[\"3\"]}},\"script_fields\":{\"x\":{\"script\":\"doc['n'].value\","
           "\"ignore_failure\":true},\"y\":{\"script\":\"1\"}}}",
           200, "{\"hits\":{\"hits\":[{\"_id\":\"3\",\"_score\":1.0,\"fields\":{\"y\":[1]}}]}}");
    /* index.max_script_fields */
    OK("PUT", "/lim", "{\"settings\":{\"index.max_script_fields\":2}}");
    EXPECT_HAS("POST", "/lim/_search",
               "{\"script_fields\":{\"a\":{\"script\":\"1\"},\"b\":{\"script\":\"1\"},\"c\":{\"script\":\"1\"}}}", 400,
               "\"reason\":\"Trying to retrieve too many script_fields. Must be less than or equal to: [2] but was [3]. "
               "This limit can be set by changing the [index.max_script_fields] index level setting.\"");
    /* a compile error is the shard's ScriptException */
    EXPECT_HAS("POST", "/s/_search", "{\"script_fields\":{\"a\":{\"script\":\"1 +\"}}}", 400,
               "{\"error\":{\"root_cause\":[{\"type\":\"script_exception\",\"reason\":\"compile error\",\"script_stack\":"
               "[\"1 +\",\"   ^---- HERE\"],\"script\":\"1 +\",\"lang\":\"painless\",\"position\":{\"offset\":3,\"start\":0,"
               "\"end\":3}}],\"type\":\"search_phase_execution_exception\",\"reason\":\"all shards failed\",\"phase\":\"query\","
               "\"grouped\":true,\"failed_shards\":[{\"shard\":0,\"index\":\"s\",");
    EXPECT_HAS("POST", "/s/_search", "{\"script_fields\":{\"a\":{\"script\":\"1 +\"}}}", 400,
               "\"reason\":{\"type\":\"script_exception\",\"reason\":\"compile error\",\"script_stack\":[\"1 +\",\"   ^---- HERE\"],"
               "\"script\":\"1 +\",\"lang\":\"painless\",\"position\":{\"offset\":3,\"start\":0,\"end\":3},\"caused_by\":{\"type\":"
               "\"illegal_argument_exception\",\"reason\":\"unexpected end of script.\"}}}],\"caused_by\":{\"type\":"
               "\"script_exception\",\"reason\":\"compile error\"");
    /* the script's lang and the Script.parse errors */
    EXPECT_HAS("POST", "/s/_search", "{\"script_fields\":{\"a\":{\"script\":{\"source\":\"1\",\"lang\":\"foo\"}}}}", 400,
               "\"reason\":\"script_lang not supported [foo]\"");
    EXPECT_HAS("POST", "/s/_search", "{\"script_fields\":{\"a\":{\"script\":{\"lang\":\"painless\"}}}}", 400,
               "\"reason\":\"must specify either [source] for an inline script or [id] for a stored script\"");
    /* a stored script */
    OK("PUT", "/_scripts/twice", "{\"script\":{\"lang\":\"painless\",\"source\":\"doc['n'].value * 2\"}}");
    EXPECT("POST", "/s/_search" FP,
           "{\"query\":{\"ids\":{\"values\":[\"2\"]}},\"script_fields\":{\"x\":{\"script\":{\"id\":\"twice\"}}}}", 200,
           "{\"hits\":{\"hits\":[{\"_id\":\"2\",\"_score\":1.0,\"fields\":{\"x\":[10]}}]}}");
}

static void test_script_queries(void **s) {
    (void)s;
    load();
    /* a filter: constant score (the boost) */
    EXPECT("POST", "/s/_search" FP,
           "{\"_source\":false,\"query\":{\"script\":{\"boost\":2,\"script\":{\"source\":\"doc['n'].size() > 0 && "
           "doc['n'].value > params.x\",\"params\":{\"x\":2}}}}}",
           200, "{\"hits\":{\"hits\":[{\"_id\":\"2\",\"_score\":2.0}]}}");
    /* script_score: _score, params, min_score, boost */
    EXPECT("POST", "/s/_search" FP,
           "{\"_source\":false,\"query\":{\"script_score\":{\"query\":{\"match_all\":{}},\"boost\":2,\"min_score\":3,"
           "\"script\":{\"source\":\"doc['n'].size() == 0 ? 0 : doc['n'].value * params.f + _score\",\"params\":{\"f\":2}}}}}",
           200, "{\"hits\":{\"hits\":[{\"_id\":\"2\",\"_score\":22.0},{\"_id\":\"1\",\"_score\":6.0}]}}");
    EXPECT_HAS("POST", "/s/_search", "{\"query\":{\"script_score\":{\"query\":{\"match_all\":{}},\"script\":\"-1\"}}}", 400,
               "\"reason\":\"script_score script returned an invalid score [-1.0] for doc [0]. Must be a non-negative score!\"");
    /* function_score's script_score function */
    EXPECT("POST", "/s/_search" FP,
           "{\"_source\":false,\"query\":{\"function_score\":{\"query\":{\"exists\":{\"field\":\"n\"}},\"functions\":["
           "{\"script_score\":{\"script\":\"doc['n'].value\"}},{\"filter\":{\"term\":{\"k\":\"a\"}},\"weight\":10}],"
           "\"score_mode\":\"sum\",\"boost_mode\":\"replace\"}}}",
           200, "{\"hits\":{\"hits\":[{\"_id\":\"1\",\"_score\":11.0},{\"_id\":\"2\",\"_score\":5.0}]}}");
    EXPECT_HAS("POST", "/s/_search", "{\"query\":{\"function_score\":{\"script_score\":{\"script\":\"-2\"}}}}", 400,
               "\"reason\":\"script score function must not produce negative scores, but got: [-2.0]\"");
    /* a runtime error in a query fails the shard */
    EXPECT_HAS("POST", "/s/_search", "{\"query\":{\"script\":{\"script\":\"doc['n'].value > 1\"}}}", 400,
               "\"failed_shards\":[{\"shard\":0,\"index\":\"s\",");
    EXPECT_HAS("POST", "/s/_search", "{\"query\":{\"script\":{\"script\":\"doc['n'].value > 1\"}}}", 400,
               "\"reason\":{\"type\":\"script_exception\",\"reason\":\"runtime error\",\"script_stack\":[\"doc['n'].value > 1\",");
    /* doc is not there without a search context's globals: _score in a filter */
    EXPECT_HAS("POST", "/s/_search", "{\"query\":{\"script\":{\"script\":\"_score > 1\"}}}", 400,
               "\"reason\":\"compile error\"");
    EXPECT_HAS("POST", "/s/_search", "{\"query\":{\"script\":{}}}", 400, "script must be provided with a [script] query");
}

static void test_script_sort(void **s) {
    (void)s;
    load();
    /* number: a double sort value; _score is the query's; scores not shown */
    EXPECT("POST", "/s/_search?filter_path=hits.hits._id,hits.hits._score,hits.hits.sort",
           "{\"sort\":[{\"_script\":{\"type\":\"number\",\"order\":\"desc\",\"script\":{\"source\":"
           "\"(doc['n'].size() == 0 ? 0 : doc['n'].value * params.f) + _score\",\"params\":{\"f\":2}}}}]}",
           200,
           "{\"hits\":{\"hits\":[{\"_id\":\"2\",\"_score\":null,\"sort\":[11.0]},{\"_id\":\"1\",\"_score\":null,"
           "\"sort\":[3.0]},{\"_id\":\"3\",\"_score\":null,\"sort\":[1.0]}]}}");
    /* string, then _doc */
    EXPECT("POST", "/s/_search?filter_path=hits.hits._id,hits.hits.sort",
           "{\"sort\":[{\"_script\":{\"type\":\"string\",\"script\":\"doc['k'][0] + 'x'\"}},\"_doc\"]}", 200,
           "{\"hits\":{\"hits\":[{\"_id\":\"1\",\"sort\":[\"ax\",0]},{\"_id\":\"2\",\"sort\":[\"bx\",1]},"
           "{\"_id\":\"3\",\"sort\":[\"zx\",2]}]}}");
    EXPECT_HAS("POST", "/s/_search", "{\"sort\":[{\"_script\":{\"type\":\"nope\",\"script\":\"1\"}}]}", 400,
               "\"reason\":\"Unknown ScriptSortType [nope]\"");
    EXPECT_HAS("POST", "/s/_search", "{\"sort\":[{\"_script\":{\"type\":\"number\",\"script\":\"'a'\"}}]}", 400,
               "\"caused_by\":{\"type\":\"class_cast_exception\",\"reason\":\"Cannot cast java.lang.String to double\"}");
    EXPECT_HAS("POST", "/s/_search", "{\"sort\":[{\"_script\":{\"script\":\"1\"}}]}", 400, "Required [type]");
}

static void test_bucket_scripts(void **s) {
    (void)s;
    load();
    OK("PUT", "/s/_doc/4?refresh=true", "{\"n\":7,\"k\":\"b\"}");
    EXPECT("POST", "/s/_search?filter_path=aggregations",
           "{\"size\":0,\"aggs\":{\"by\":{\"terms\":{\"field\":\"k\"},\"aggs\":{\"s\":{\"sum\":{\"field\":\"n\"}},"
           "\"r\":{\"bucket_script\":{\"buckets_path\":{\"x\":\"s\",\"c\":\"_count\"},\"script\":{\"source\":"
           "\"params.x / params.c * params.f\",\"params\":{\"f\":2}},\"format\":\"0.0\"}},"
           "\"sel\":{\"bucket_selector\":{\"buckets_path\":{\"x\":\"s\"},\"script\":\"params.x > 6\"}}}}}}",
           200,
           "{\"aggregations\":{\"by\":{\"doc_count_error_upper_bound\":0,\"sum_other_doc_count\":0,\"buckets\":[{\"key\":"
           "\"b\",\"doc_count\":2,\"s\":{\"value\":12.0},\"r\":{\"value\":12.0,\"value_as_string\":\"12.0\"}}]}}}");
    EXPECT_HAS("POST", "/s/_search",
               "{\"size\":0,\"aggs\":{\"by\":{\"terms\":{\"field\":\"k\"},\"aggs\":{\"r\":{\"bucket_script\":{"
               "\"buckets_path\":{\"c\":\"_count\"},\"script\":\"params.c +\"}}}}}}",
               400, "{\"error\":{\"root_cause\":[{\"type\":\"script_exception\",\"reason\":\"compile error\"");
    EXPECT_HAS("POST", "/s/_search",
               "{\"size\":0,\"aggs\":{\"by\":{\"terms\":{\"field\":\"k\"},\"aggs\":{\"r\":{\"bucket_script\":{"
               "\"script\":\"1\"}}}}}}",
               400, "Missing required field [buckets_path] for bucket_script aggregation [r]");
    EXPECT_HAS("POST", "/s/_search",
               "{\"size\":0,\"aggs\":{\"by\":{\"terms\":{\"field\":\"k\"}},\"r\":{\"bucket_selector\":{"
               "\"buckets_path\":{\"c\":\"by._count\"},\"script\":\"true\"}}}}",
               400, "\"reason\":\"Validation Failed: 1: bucket_selector aggregation [r] must be declared inside of another aggregation;\"");
}

/* moving_fn scripts beyond one MovingFunctions call run in Painless with
 * `values` (the window) and the MovingFunctions class, which other
 * contexts do not know. */
static void test_moving_fn_scripts(void **s) {
    (void)s;
    for (int i = 1; i <= 4; i++) {
        char path[32], body[64];
        snprintf(path, sizeof path, "/mf/_doc/%d", i);
        snprintf(body, sizeof body, "{\"t\":%d,\"v\":%d}", i, i * i);
        OK("PUT", path, body);
    }
    OK("POST", "/mf/_refresh", NULL);
    /* windows of 2 before each bucket: [], [1], [1,4], [4,9] */
    const char *q = "{\"size\":0,\"aggs\":{\"h\":{\"histogram\":{\"field\":\"t\",\"interval\":1},\"aggs\":{"
                    "\"s\":{\"sum\":{\"field\":\"v\"}},\"mf\":{\"moving_fn\":{\"buckets_path\":\"s\",\"window\":2,"
                    "\"script\":{\"source\":\"double t = 0; for (double x : values) { t += x } "
                    "return MovingFunctions.max(values) - MovingFunctions.min(values) + t * params.f\","
                    "\"params\":{\"f\":10}}}}}}}}";
    EXPECT_HAS("POST", "/mf/_search", q, 200, "\"key\":1.0,\"doc_count\":1,\"s\":{\"value\":1.0},\"mf\":{\"value\":null}");
    EXPECT_HAS("POST", "/mf/_search", q, 200, "\"key\":2.0,\"doc_count\":1,\"s\":{\"value\":4.0},\"mf\":{\"value\":10.0}");
    EXPECT_HAS("POST", "/mf/_search", q, 200, "\"key\":3.0,\"doc_count\":1,\"s\":{\"value\":9.0},\"mf\":{\"value\":53.0}");
    EXPECT_HAS("POST", "/mf/_search", q, 200, "\"key\":4.0,\"doc_count\":1,\"s\":{\"value\":16.0},\"mf\":{\"value\":135.0}");
    /* a result that is no number */
    EXPECT_HAS("POST", "/mf/_search",
               "{\"size\":0,\"aggs\":{\"h\":{\"histogram\":{\"field\":\"t\",\"interval\":1},\"aggs\":{"
               "\"s\":{\"sum\":{\"field\":\"v\"}},\"mf\":{\"moving_fn\":{\"buckets_path\":\"s\",\"window\":2,"
               "\"script\":\"return 'x'\"}}}}}}",
               400, "\"caused_by\":{\"type\":\"class_cast_exception\",\"reason\":\"Cannot cast java.lang.String to double\"}");
    /* MovingFunctions is the moving-function context's class only */
    EXPECT_HAS("POST", "/mf/_search", "{\"query\":{\"script\":{\"script\":\"MovingFunctions.max([1.0]) > 0\"}}}", 400,
               "\"reason\":\"compile error\"");
}

#define AGG(body, want) EXPECT("POST", "/ag/_search?size=0&filter_path=aggregations", "{\"aggs\":{\"x\":" body "}}", 200, \
                              "{\"aggregations\":{\"x\":" want "}}")

/* A script as the values source of the numeric metrics
 * (ValuesSourceConfig): the script's values (a number, a boolean, a date
 * or a collection of them; null is no value), or a value script over a
 * field's values as _value. */
static void test_agg_scripts(void **s) {
    (void)s;
    OK("PUT", "/ag",
       "{\"mappings\":{\"properties\":{\"n\":{\"type\":\"long\"},\"d\":{\"type\":\"double\"},"
       "\"k\":{\"type\":\"keyword\"},\"dt\":{\"type\":\"date\"}}}}");
    OK("PUT", "/ag/_doc/1", "{\"n\":1,\"d\":1.5,\"k\":\"a\",\"dt\":\"2020-01-01\"}");
    OK("PUT", "/ag/_doc/2", "{\"n\":[5,3],\"d\":2.5,\"k\":\"b\"}");
    OK("PUT", "/ag/_doc/3?refresh=true", "{\"k\":\"c\"}");
    /* doc 1: 1 * 2 = 2; doc 2: its first (smallest) value 3 * 2 = 6; doc 3: null, no value: (2 + 6) / 2 */
    AGG("{\"avg\":{\"script\":\"doc['n'].size() == 0 ? null : doc['n'].value * 2\"}}", "{\"value\":4.0}");
    /* 1.5 * 10 + 2.5 * 10 + 0 */
    AGG("{\"sum\":{\"script\":{\"source\":\"doc['d'].size() == 0 ? 0 : doc['d'].value * params.f\",\"params\":{\"f\":10}}}}",
        "{\"value\":40.0}");
    /* a collection: each of its values (1; 3, 5) */
    AGG("{\"stats\":{\"script\":\"doc['n']\"}}", "{\"count\":3,\"min\":1.0,\"max\":5.0,\"avg\":3.0,\"sum\":9.0}");
    /* value scripts: _value is each field value */
    AGG("{\"max\":{\"field\":\"n\",\"script\":\"_value * 3\"}}", "{\"value\":15.0}");
    AGG("{\"min\":{\"field\":\"n\",\"script\":{\"source\":\"_value - params.o\",\"params\":{\"o\":10}}}}",
        "{\"value\":-9.0}");
    /* value_count counts values of any type */
    AGG("{\"value_count\":{\"script\":\"doc['k'].value\"}}", "{\"value\":3}");
    AGG("{\"value_count\":{\"script\":\"doc['n']\"}}", "{\"value\":3}");
    /* a date is its epoch millis (2020-01-01), a boolean 1 */
    AGG("{\"max\":{\"script\":\"doc['dt'].size() > 0 ? doc['dt'].value : null\"}}", "{\"value\":1.5778368E12}");
    AGG("{\"sum\":{\"script\":\"doc['k'].value == 'a'\"}}", "{\"value\":1.0}");
    /* a string is no number */
    EXPECT_HAS("POST", "/ag/_search?size=0", "{\"aggs\":{\"x\":{\"avg\":{\"script\":\"doc['k'].value\"}}}}", 500,
               "\"reason\":{\"type\":\"aggregation_execution_exception\",\"reason\":\"Unsupported script value [a], "
               "expected a number, date, or boolean\"}");
    /* the script compiles on the shard */
    EXPECT_HAS("POST", "/ag/_search?size=0", "{\"aggs\":{\"x\":{\"avg\":{\"script\":\"1 +\"}}}}", 400,
               "\"type\":\"search_phase_execution_exception\",\"reason\":\"all shards failed\"");
    /* what trove leaves out says so */
    EXPECT_HAS("POST", "/ag/_search?size=0", "{\"aggs\":{\"x\":{\"terms\":{\"script\":\"doc['k'].value\"}}}}", 400,
               "\"reason\":\"[script] in aggregation [terms] is not supported by trove\"");
    EXPECT_HAS("POST", "/ag/_search?size=0", "{\"aggs\":{\"x\":{\"avg\":{\"script\":\"1\",\"missing\":2}}}}", 400,
               "\"reason\":\"[missing] with a [script] in aggregation [avg] is not supported by trove\"");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_doc_values, setup, teardown),
        cmocka_unit_test_setup_teardown(test_date_geo_doc_values, setup, teardown),
        cmocka_unit_test_setup_teardown(test_score_functions, setup, teardown),
        cmocka_unit_test_setup_teardown(test_agg_scripts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_script_fields, setup, teardown),
        cmocka_unit_test_setup_teardown(test_script_queries, setup, teardown),
        cmocka_unit_test_setup_teardown(test_script_sort, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bucket_scripts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_moving_fn_scripts, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
