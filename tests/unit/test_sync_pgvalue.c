/* test_sync_pgvalue.c — PostgreSQL text output values -> JSON, column types
 * -> field mappings (src/sync/pgvalue.c).
 *
 * The value cases are real: each text below is what a PostgreSQL 15.20
 * session with the feed's settings (DateStyle ISO, TimeZone UTC except
 * where a case says otherwise, IntervalStyle postgres, bytea_output hex,
 * extra_float_digits 3) printed for an SQL expression, with the OID of its
 * result column; the expected JSON was written by hand from the rules in
 * pgvalue.c (base64 of the 256-byte value by Python's base64 module). The
 * array table is PostgreSQL 15's catalog:
 *   SELECT a.oid, a.typelem FROM pg_type a JOIN pg_type e ON e.oid = a.typelem
 *   WHERE a.typcategory = 'A' AND a.oid < 16384
 * The numeric typmods are pg_attribute.atttypmod of real columns. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sync/sync.h"

typedef struct pg_case {
    uint32_t oid;
    const char *text; /* the PG text output */
    bool numeric_as_number;
    const char *want; /* the JSON, or NULL: tv_pgv_json returns false */
} pg_case;

/* PostgreSQL 15.20; the SQL of each case is in the comment above it.
 * Where a timestamptz offset is not +00 the session's TimeZone was
 * Asia/Kolkata, America/St_Johns, Europe/Amsterdam, Asia/Tokyo or
 * America/New_York. 16400 is an enum type's OID (any user type). */
static const pg_case pg_cases[] = {
    /* true */
    {16, "t", false, "true"},
    /* false */
    {16, "f", false, "false"},
    /* 32767::int2 */
    {21, "32767", false, "32767"},
    /* (-32768)::int2 */
    {21, "-32768", false, "-32768"},
    /* 0::int2 */
    {21, "0", false, "0"},
    /* 2147483647::int4 */
    {23, "2147483647", false, "2147483647"},
    /* (-2147483648)::int4 */
    {23, "-2147483648", false, "-2147483648"},
    /* 9223372036854775807::int8 */
    {20, "9223372036854775807", false, "9223372036854775807"},
    /* (-9223372036854775808)::int8 */
    {20, "-9223372036854775808", false, "-9223372036854775808"},
    /* 4294967295::oid */
    {26, "4294967295", false, "4294967295"},
    /* 0::oid */
    {26, "0", false, "0"},
    /* 0.1::float4 */
    {700, "0.1", false, "0.1"},
    /* 3.4028235e38::float4 */
    {700, "3.4028235e+38", false, "3.4028235e+38"},
    /* 1.4e-45::float4 */
    {700, "1e-45", false, "1e-45"},
    /* '-0'::float4 */
    {700, "-0", false, "-0"},
    /* 'NaN'::float4 */
    {700, "NaN", false, "\"NaN\""},
    /* 'inf'::float4 */
    {700, "Infinity", false, "\"Infinity\""},
    /* 1.17549435e-38::float4 */
    {700, "1.1754944e-38", false, "1.1754944e-38"},
    /* 16777217::float4 */
    {700, "1.6777216e+07", false, "1.6777216e+07"},
    /* 1e-300::float8 */
    {701, "1e-300", false, "1e-300"},
    /* '-0'::float8 */
    {701, "-0", false, "-0"},
    /* 1e30::float8 */
    {701, "1e+30", false, "1e+30"},
    /* 1.7976931348623157e308::float8 */
    {701, "1.7976931348623157e+308", false, "1.7976931348623157e+308"},
    /* 5e-324::float8 */
    {701, "5e-324", false, "5e-324"},
    /* 0.1::float8 + 0.2::float8 */
    {701, "0.30000000000000004", false, "0.30000000000000004"},
    /* 123456789012::float8 */
    {701, "123456789012", false, "123456789012"},
    /* 1e15::float8 */
    {701, "1e+15", false, "1e+15"},
    /* 0.0001::float8 */
    {701, "0.0001", false, "0.0001"},
    /* 1e-5::float8 */
    {701, "1e-05", false, "1e-05"},
    /* 'NaN'::float8 */
    {701, "NaN", false, "\"NaN\""},
    /* '-Infinity'::float8 */
    {701, "-Infinity", false, "\"-Infinity\""},
    /* 'Infinity'::float8 */
    {701, "Infinity", false, "\"Infinity\""},
    /* 1e40::numeric */
    {1700,
     "10000000000000000000000000000000000000000",
     false,
     "\"10000000000000000000000000000000000000000\""},
    /* 1234567890123456789012345678901234567890.12345::numeric */
    {1700,
     "1234567890123456789012345678901234567890.12345",
     false,
     "\"1234567890123456789012345678901234567890.12345\""},
    /* (-0.001)::numeric */
    {1700, "-0.001", false, "\"-0.001\""},
    /* 'NaN'::numeric */
    {1700, "NaN", false, "\"NaN\""},
    /* 'Infinity'::numeric */
    {1700, "Infinity", false, "\"Infinity\""},
    /* '-Infinity'::numeric */
    {1700, "-Infinity", false, "\"-Infinity\""},
    /* 1.5::numeric(5,2) */
    {1700, "1.50", false, "\"1.50\""},
    /* (-0.0)::numeric */
    {1700, "0.0", false, "\"0.0\""},
    /* 1e-20::numeric */
    {1700, "0.00000000000000000001", false, "\"0.00000000000000000001\""},
    /* 12345::numeric(5,-2) */
    {1700, "12300", false, "\"12300\""},
    /* 1.5::numeric(5,2) */
    {1700, "1.50", true, "1.50"},
    /* (-1e-20)::numeric */
    {1700, "-0.00000000000000000001", true, "-0.00000000000000000001"},
    /* 'NaN'::numeric */
    {1700, "NaN", true, "\"NaN\""},
    /* '-Infinity'::numeric */
    {1700, "-Infinity", true, "\"-Infinity\""},
    /* 1e40::numeric */
    {1700, "10000000000000000000000000000000000000000", true, "10000000000000000000000000000000000000000"},
    /* 0::numeric */
    {1700, "0", true, "0"},
    /* 'plain'::text */
    {25, "plain", false, "\"plain\""},
    /* ''::text */
    {25, "", false, "\"\""},
    /* E'q"uo\\te'::text */
    {25, "q\"uo\\te", false, "\"q\\\"uo\\\\te\""},
    /* E'line\nbreak\ttab\r'::text */
    {25, "line\012break\011tab\015", false, "\"line\\nbreak\\ttab\\r\""},
    /* 'é€😀'::text */
    {25, "\303\251\342\202\254\360\237\230\200", false, "\"\303\251\342\202\254\\uD83D\\uDE00\""},
    /* E'\x01\x1f'::text */
    {25, "\001\037", false, "\"\\u0001\\u001F\""},
    /* 'abc'::varchar(10) */
    {1043, "abc", false, "\"abc\""},
    /* 'a'::char(4) */
    {1042, "a   ", false, "\"a   \""},
    /* 'pg_class'::name */
    {19, "pg_class", false, "\"pg_class\""},
    /* 'x'::"char" */
    {18, "x", false, "\"x\""},
    /* 'NULL'::text */
    {25, "NULL", false, "\"NULL\""},
    /* '{1,2}'::text */
    {25, "{1,2}", false, "\"{1,2}\""},
    /* 'happy'::mood */
    {16417, "happy", false, "\"happy\""},
    /* 'c7c4ba47-0a94-4b35-a5a0-2a7ebea1b456'::uuid */
    {2950, "c7c4ba47-0a94-4b35-a5a0-2a7ebea1b456", false, "\"c7c4ba47-0a94-4b35-a5a0-2a7ebea1b456\""},
    /* '{"a":1,  "b":[true,null,"x\"y"]}'::json */
    {114, "{\"a\":1,  \"b\":[true,null,\"x\\\"y\"]}", false, "{\"a\":1,\"b\":[true,null,\"x\\\"y\"]}"},
    /* E'{\n"x": 1.50e3,\n"y": {}\n}'::json */
    {114, "{\012\"x\": 1.50e3,\012\"y\": {}\012}", false, "{\"x\":1.50e3,\"y\":{}}"},
    /* '{"b":{"c":[1,{"d":null}]},"a":"é"}'::jsonb */
    {3802,
     "{\"a\": \"\303\251\", \"b\": {\"c\": [1, {\"d\": null}]}}",
     false,
     "{\"a\":\"\303\251\",\"b\":{\"c\":[1,{\"d\":null}]}}"},
    /* '"str"'::jsonb */
    {3802, "\"str\"", false, "\"str\""},
    /* '123.4500'::jsonb */
    {3802, "123.4500", false, "123.4500"},
    /* '[]'::jsonb */
    {3802, "[]", false, "[]"},
    /* '"\u00e9\ud83d\ude00"'::jsonb */
    {3802, "\"\303\251\360\237\230\200\"", false, "\"\303\251\\uD83D\\uDE00\""},
    /* '"\u00e9"'::json */
    {114, "\"\\u00e9\"", false, "\"\303\251\""},
    /* '1e400'::json */
    {114, "1e400", false, "1e400"},
    /* 'null'::jsonb */
    {3802, "null", false, "null"},
    /* '{"a":1,"a":2}'::json */
    {114, "{\"a\":1,\"a\":2}", false, NULL},
    /* '{"a":1,"a":2}'::jsonb */
    {3802, "{\"a\": 2}", false, "{\"a\":2}"},
    /* (select string_agg('[', '') from generate_series(1,300)) || (select string_agg(']', '') from gene... */
    {114,
     "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
     "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
     "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
     "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"
     "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"
     "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
     false,
     NULL},
    /* '2020-01-02'::date */
    {1082, "2020-01-02", false, "\"2020-01-02\""},
    /* 'infinity'::date */
    {1082, "infinity", false, "\"infinity\""},
    /* '-infinity'::date */
    {1082, "-infinity", false, "\"-infinity\""},
    /* '0044-03-15 BC'::date */
    {1082, "0044-03-15 BC", false, "\"0044-03-15 BC\""},
    /* '12345-01-01'::date */
    {1082, "12345-01-01", false, "\"12345-01-01\""},
    /* '2020-01-02 03:04:05.123456'::timestamp */
    {1114, "2020-01-02 03:04:05.123456", false, "\"2020-01-02T03:04:05.123456\""},
    /* '2020-01-02 03:04:05'::timestamp */
    {1114, "2020-01-02 03:04:05", false, "\"2020-01-02T03:04:05\""},
    /* '2020-01-02 03:04:05.1'::timestamp */
    {1114, "2020-01-02 03:04:05.1", false, "\"2020-01-02T03:04:05.1\""},
    /* 'infinity'::timestamp */
    {1114, "infinity", false, "\"infinity\""},
    /* '-infinity'::timestamp */
    {1114, "-infinity", false, "\"-infinity\""},
    /* '0044-03-15 BC'::timestamp */
    {1114, "0044-03-15 00:00:00 BC", false, "\"0044-03-15 00:00:00 BC\""},
    /* '294276-12-31 23:59:59.999999'::timestamp */
    {1114, "294276-12-31 23:59:59.999999", false, "\"294276-12-31T23:59:59.999999\""},
    /* '2020-01-02 03:04:05.123456+00'::timestamptz */
    {1184, "2020-01-02 03:04:05.123456+00", false, "\"2020-01-02T03:04:05.123456Z\""},
    /* '2020-01-02 03:04:05+05:30'::timestamptz */
    {1184, "2020-01-01 21:34:05+00", false, "\"2020-01-01T21:34:05Z\""},
    /* 'infinity'::timestamptz */
    {1184, "infinity", false, "\"infinity\""},
    /* '-infinity'::timestamptz */
    {1184, "-infinity", false, "\"-infinity\""},
    /* '0044-03-15 12:00 BC'::timestamptz */
    {1184, "0044-03-15 12:00:00+00 BC", false, "\"0044-03-15 12:00:00+00 BC\""},
    /* '2020-01-02 03:04:05'::timestamptz (TimeZone Asia/Kolkata) */
    {1184, "2020-01-02 03:04:05+05:30", false, "\"2020-01-02T03:04:05+05:30\""},
    /* '2020-01-02 03:04:05.5'::timestamptz (TimeZone America/St_Johns) */
    {1184, "2020-01-02 03:04:05.5-03:30", false, "\"2020-01-02T03:04:05.5-03:30\""},
    /* '1900-01-01'::timestamptz (TimeZone Europe/Amsterdam) */
    {1184, "1900-01-01 00:00:00+00:19:32", false, "\"1900-01-01T00:00:00+00:19:32\""},
    /* '2020-01-02'::timestamptz (TimeZone Asia/Tokyo) */
    {1184, "2020-01-02 00:00:00+09", false, "\"2020-01-02T00:00:00+09:00\""},
    /* '2020-01-02'::timestamptz (TimeZone America/New_York) */
    {1184, "2020-01-02 00:00:00-05", false, "\"2020-01-02T00:00:00-05:00\""},
    /* '0044-03-15 BC'::timestamptz (TimeZone Europe/Amsterdam) */
    {1184, "0044-03-15 00:00:00+00:19:32 BC", false, "\"0044-03-15 00:00:00+00:19:32 BC\""},
    /* '03:04:05.5'::time */
    {1083, "03:04:05.5", false, "\"03:04:05.5\""},
    /* '24:00:00'::time */
    {1083, "24:00:00", false, "\"24:00:00\""},
    /* '12:34:56.5+05:30'::timetz */
    {1266, "12:34:56.5+05:30", false, "\"12:34:56.5+05:30\""},
    /* '1 year 2 mons 3 days 04:05:06.5'::interval */
    {1186, "1 year 2 mons 3 days 04:05:06.5", false, "\"1 year 2 mons 3 days 04:05:06.5\""},
    /* '-1 days -00:00:01'::interval */
    {1186, "-1 days -00:00:01", false, "\"-1 days -00:00:01\""},
    /* ''::bytea */
    {17, "\\x", false, "\"\""},
    /* '\x0a0b'::bytea */
    {17, "\\x0a0b", false, "\"Cgs=\""},
    /* '\x00ff10'::bytea */
    {17, "\\x00ff10", false, "\"AP8Q\""},
    /* 'abc'::bytea */
    {17, "\\x616263", false, "\"YWJj\""},
    /* 'ab'::bytea */
    {17, "\\x6162", false, "\"YWI=\""},
    /* 'a'::bytea */
    {17, "\\x61", false, "\"YQ==\""},
    /* (select string_agg(set_byte('\x00'::bytea, 0, i), '') from generate_series(0,255) i) */
    {17,
     "\\x000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f3"
     "03132333435363738393a3b3c3d3e3f404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f60616"
     "2636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f808182838485868788898a8b8c8d8e8f909192939"
     "495969798999a9b9c9d9e9fa0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebfc0c1c2c3c4c5c"
     "6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedfe0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f"
     "8f9fafbfcfdfeff",
     false,
     "\"AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4vMDEyMzQ1Njc4OTo7PD0+P0BBQkNERUZHSE"
     "lKS0xNTk9QUVJTVFVWV1hZWltcXV5fYGFiY2RlZmdoaWprbG1ub3BxcnN0dXZ3eHl6e3x9fn+AgYKDhIWGh4iJiouMjY6PkJGSk5"
     "SVlpeYmZqbnJ2en6ChoqOkpaanqKmqq6ytrq+wsbKztLW2t7i5uru8vb6/wMHCw8TFxsfIycrLzM3Oz9DR0tPU1dbX2Nna29zd3t"
     "/g4eLj5OXm5+jp6uvs7e7v8PHy8/T19vf4+fr7/P3+/w==\""},
    /* '10.0.0.1/8'::inet */
    {869, "10.0.0.1/8", false, "\"10.0.0.1/8\""},
    /* '10.0.0.1'::inet */
    {869, "10.0.0.1", false, "\"10.0.0.1\""},
    /* '::1'::inet */
    {869, "::1", false, "\"::1\""},
    /* '10.0.0.0/8'::cidr */
    {650, "10.0.0.0/8", false, "\"10.0.0.0/8\""},
    /* '2001:db8::/32'::cidr */
    {650, "2001:db8::/32", false, "\"2001:db8::/32\""},
    /* '08:00:2b:01:02:03'::macaddr */
    {829, "08:00:2b:01:02:03", false, "\"08:00:2b:01:02:03\""},
    /* '08:00:2b:01:02:03:04:05'::macaddr8 */
    {774, "08:00:2b:01:02:03:04:05", false, "\"08:00:2b:01:02:03:04:05\""},
    /* 12.5::money */
    {790, "$12.50", false, "\"$12.50\""},
    /* B'101' */
    {1560, "101", false, "\"101\""},
    /* B'101'::varbit */
    {1562, "101", false, "\"101\""},
    /* point(1.5,2) */
    {600, "(1.5,2)", false, "\"(1.5,2)\""},
    /* box '((0,0),(1,1))' */
    {603, "(1,1),(0,0)", false, "\"(1,1),(0,0)\""},
    /* circle '<(0,0),2>' */
    {718, "<(0,0),2>", false, "\"<(0,0),2>\""},
    /* 'a:1 b:2'::tsvector */
    {3614, "'a':1 'b':2", false, "\"'a':1 'b':2\""},
    /* 'a & !b'::tsquery */
    {3615, "'a' & !'b'", false, "\"'a' & !'b'\""},
    /* '<a>x</a>'::xml */
    {142, "<a>x</a>", false, "\"<a>x</a>\""},
    /* '0/16B3748'::pg_lsn */
    {3220, "0/16B3748", false, "\"0/16B3748\""},
    /* '[1,3)'::int4range */
    {3904, "[1,3)", false, "\"[1,3)\""},
    /* 'empty'::int4range */
    {3904, "empty", false, "\"empty\""},
    /* tstzrange('2020-01-01', 'infinity') */
    {3910, "[\"2020-01-01 00:00:00+00\",infinity)", false, "\"[\\\"2020-01-01 00:00:00+00\\\",infinity)\""},
    /* '{[1,2], [5,6)}'::int4multirange */
    {4451, "{[1,3),[5,6)}", false, "\"{[1,3),[5,6)}\""},
    /* array[1,null,3] */
    {1007, "{1,NULL,3}", false, "[1,null,3]"},
    /* array['NULL',null,'a,b','{x}','q"uo\te',' sp ','','null']::text[] */
    {1009,
     "{\"NULL\",NULL,\"a,b\",\"{x}\",\"q\\\"uo\\\\te\",\" sp \",\"\",\"null\"}",
     false,
     "[\"NULL\",null,\"a,b\",\"{x}\",\"q\\\"uo\\\\te\",\" sp \",\"\",\"null\"]"},
    /* '{}'::int[] */
    {1007, "{}", false, "[]"},
    /* '{}'::text[] */
    {1009, "{}", false, "[]"},
    /* array[[1,2],[3,4]] */
    {1007, "{{1,2},{3,4}}", false, "[[1,2],[3,4]]"},
    /* '[0:1]={7,8}'::int[] */
    {1007, "[0:1]={7,8}", false, "[7,8]"},
    /* '[-2:-1]={7,8}'::int[] */
    {1007, "[-2:-1]={7,8}", false, "[7,8]"},
    /* '[0:1][1:2]={{1,2},{3,4}}'::int[] */
    {1007, "[0:1][1:2]={{1,2},{3,4}}", false, "[[1,2],[3,4]]"},
    /* '{{{{{{1}}}}}}'::int[] */
    {1007, "{{{{{{1}}}}}}", false, "[[[[[[1]]]]]]"},
    /* '{{{1}}}'::int[] */
    {1007, "{{{1}}}", false, "[[[1]]]"},
    /* array[array['a','b']]::text[] */
    {1009, "{{a,b}}", false, "[[\"a\",\"b\"]]"},
    /* array[''::text] */
    {1009, "{\"\"}", false, "[\"\"]"},
    /* array['NuLl'] */
    {1009, "{\"NuLl\"}", false, "[\"NuLl\"]"},
    /* array[E'\\'] */
    {1009, "{\"\\\\\"}", false, "[\"\\\\\"]"},
    /* array[E'tab\there'] */
    {1009, "{\"tab\011here\"}", false, "[\"tab\\there\"]"},
    /* array[E'\\é'] */
    {1009, "{\"\\\\\303\251\"}", false, "[\"\\\\\303\251\"]"},
    /* array['é€😀'] */
    {1009, "{\303\251\342\202\254\360\237\230\200}", false, "[\"\303\251\342\202\254\\uD83D\\uDE00\"]"},
    /* array[repeat('"', 300)] */
    {1009,
     "{\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\""
     "\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\""
     "\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\""
     "\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\""
     "\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\""
     "\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\""
     "\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\""
     "\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\""
     "\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\""
     "\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\""
     "\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\""
     "\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\""
     "\"}",
     false,
     "[\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\""
     "\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\""
     "\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\""
     "\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\""
     "\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\""
     "\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\""
     "\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\""
     "\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\""
     "\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\""
     "\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\""
     "\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\""
     "\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\""
     "\"]"},
    /* array[repeat('x', 300) || '\'] */
    {1009,
     "{\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
     "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
     "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
     "xxx\\\\\"}",
     false,
     "[\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
     "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
     "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
     "xxx\\\\\"]"},
    /* array['NULL '] */
    {1009, "{\"NULL \"}", false, "[\"NULL \"]"},
    /* array['a b']::varchar[] */
    {1015, "{\"a b\"}", false, "[\"a b\"]"},
    /* array['a'::char(3)] */
    {1014, "{\"a  \"}", false, "[\"a  \"]"},
    /* array['x'::name] */
    {1003, "{x}", false, "[\"x\"]"},
    /* array['a'::"char", '\'] */
    {1002, "{a,\"\\\\\"}", false, "[\"a\",\"\\\\\"]"},
    /* array[true, false, null] */
    {1000, "{t,f,NULL}", false, "[true,false,null]"},
    /* array[1::int2, -2::int2] */
    {1005, "{1,-2}", false, "[1,-2]"},
    /* array[9223372036854775807::int8] */
    {1016, "{9223372036854775807}", false, "[9223372036854775807]"},
    /* array[7::oid] */
    {1028, "{7}", false, "[7]"},
    /* array[1.5::float4, 'nan', '-inf'] */
    {1021, "{1.5,NaN,-Infinity}", false, "[1.5,\"NaN\",\"-Infinity\"]"},
    /* array[1.5::float8, 'nan', 1e-300] */
    {1022, "{1.5,NaN,1e-300}", false, "[1.5,\"NaN\",1e-300]"},
    /* array[1.5::numeric, 'nan', null] */
    {1231, "{1.5,NaN,NULL}", false, "[\"1.5\",\"NaN\",null]"},
    /* array[1.5::numeric, 'nan', null] */
    {1231, "{1.5,NaN,NULL}", true, "[1.5,\"NaN\",null]"},
    /* array['\x0a0b'::bytea, ''::bytea] */
    {1001, "{\"\\\\x0a0b\",\"\\\\x\"}", false, "[\"Cgs=\",\"\"]"},
    /* array[box '((0,0),(1,1))', box '((2,2),(3,3))'] */
    {1020, "{(1,1),(0,0);(3,3),(2,2)}", false, "[\"(1,1),(0,0)\",\"(3,3),(2,2)\"]"},
    /* array[point(1,2), null] */
    {1017, "{\"(1,2)\",NULL}", false, "[\"(1,2)\",null]"},
    /* array['{"a": [1, "x\"y"]}'::jsonb, '"s"', 'null', null] */
    {3807,
     "{\"{\\\"a\\\": [1, \\\"x\\\\\\\"y\\\"]}\",\"\\\"s\\\"\",\"null\",NULL}",
     false,
     "[{\"a\":[1,\"x\\\"y\"]},\"s\",null,null]"},
    /* array['{"a":[1,2]}'::json, '[]'] */
    {199, "{\"{\\\"a\\\":[1,2]}\",[]}", false, "[{\"a\":[1,2]},[]]"},
    /* array['2020-01-02 03:04:05'::timestamp, 'infinity'] */
    {1115, "{\"2020-01-02 03:04:05\",infinity}", false, "[\"2020-01-02T03:04:05\",\"infinity\"]"},
    /* array['2020-01-02 03:04:05.5'::timestamptz, '-infinity'] */
    {1185, "{\"2020-01-02 03:04:05.5+00\",-infinity}", false, "[\"2020-01-02T03:04:05.5Z\",\"-infinity\"]"},
    /* array['2020-01-02'::date, '0044-03-15 BC'] */
    {1182, "{2020-01-02,\"0044-03-15 BC\"}", false, "[\"2020-01-02\",\"0044-03-15 BC\"]"},
    /* array['1 day'::interval, '-00:00:01'] */
    {1187, "{\"1 day\",-00:00:01}", false, "[\"1 day\",\"-00:00:01\"]"},
    /* array['03:04:05'::time] */
    {1183, "{03:04:05}", false, "[\"03:04:05\"]"},
    /* array['c7c4ba47-0a94-4b35-a5a0-2a7ebea1b456'::uuid] */
    {2951, "{c7c4ba47-0a94-4b35-a5a0-2a7ebea1b456}", false, "[\"c7c4ba47-0a94-4b35-a5a0-2a7ebea1b456\"]"},
    /* array['10.0.0.1/8'::inet, '::1'] */
    {1041, "{10.0.0.1/8,::1}", false, "[\"10.0.0.1/8\",\"::1\"]"},
    /* array['10.0.0.0/8'::cidr] */
    {651, "{10.0.0.0/8}", false, "[\"10.0.0.0/8\"]"},
    /* array[12.5::money] */
    {791, "{$12.50}", false, "[\"$12.50\"]"},
    /* array['[1,3)'::int4range, 'empty'] */
    {3905, "{\"[1,3)\",empty}", false, "[\"[1,3)\",\"empty\"]"},
    /* array['a:1 b:2'::tsvector] */
    {3643, "{\"'a':1 'b':2\"}", false, "[\"'a':1 'b':2\"]"},
    /* array['<a x="1">y</a>'::xml] */
    {143, "{\"<a x=\\\"1\\\">y</a>\"}", false, "[\"<a x=\\\"1\\\">y</a>\"]"},
    /* array['happy'::mood]::text[] */
    {1009, "{happy}", false, "[\"happy\"]"},
    /* '1 2 3'::int2vector */
    {22, "1 2 3", false, "[1,2,3]"},
    /* ''::int2vector */
    {22, "", false, "[]"},
    /* '-32768 32767'::int2vector */
    {22, "-32768 32767", false, "[-32768,32767]"},
    /* array['1 2'::int2vector, '3'] */
    {1006, "{\"1 2\",3}", false, "[[1,2],[3]]"},
    /* '1 4294967295'::oidvector */
    {30, "1 4294967295", false, "[1,4294967295]"},
    /* array['1 2'::oidvector] */
    {1013, "{\"1 2\"}", false, "[[1,2]]"},
    /* array[null::int] */
    {1007, "{NULL}", false, "[null]"},
    /* array[[null::text],['x']] */
    {1009, "{{NULL},{x}}", false, "[[null],[\"x\"]]"},
    /* array[array[]::int[]] */
    {1007, "{}", false, "[]"},
};

/* Texts no PostgreSQL prints for the type: tv_pgv_json must return false. */
static const struct {
    uint32_t oid;
    const char *text;
} bad_cases[] = {
    {16, ""}, {16, "true"}, {16, "T"}, {16, "tt"}, {16, "1"},
    {21, ""}, {21, "32768"}, {21, "-32769"}, {21, "1.0"}, {21, "+1"}, {21, "1 "}, {21, " 1"}, {21, "-"},
    {23, "2147483648"}, {23, "-2147483649"}, {23, "0x10"}, {23, "1e3"},
    {20, "9223372036854775808"}, {20, "-9223372036854775809"}, {20, "99999999999999999999999"},
    {26, "-1"}, {26, "4294967296"}, {26, "a"},
    {701, ""}, {701, "1."}, {701, ".5"}, {701, "1e"}, {701, "1e+"}, {701, "inf"}, {701, "nan"}, {701, "-NaN"},
    {701, "0x10"}, {701, "01"}, {701, "+1"}, {701, "1 "}, {701, "--1"}, {700, "Infinityx"}, {700, "1,5"},
    {1700, ""}, {1700, "abc"}, {1700, "1.2.3"}, {1700, "nan"}, {1700, " 1"}, {1700, "$1"},
    {114, ""}, {114, "{"}, {114, "{\"a\":1,\"a\":2}"}, {114, "[1,]"}, {114, "'a'"}, {3802, "{} {}"},
    {3802, "\"\xff\""},
    {1082, ""}, {1082, "2020-1-2"}, {1082, "20-01-02"}, {1082, "2020-01-02x"}, {1082, "infinityx"},
    {1082, "2020-01-02 BCE"}, {1082, "2020/01/02"}, {1082, " BC"},
    {1114, ""}, {1114, "2020-01-02T03:04:05"}, {1114, "2020-01-02 03:04"}, {1114, "2020-01-02 03:04:05."},
    {1114, "2020-01-02 03:04:05.1234567"}, {1114, "2020-01-02 03:04:05+00"}, {1114, "2020-01-02"},
    {1114, "2020-01-02 3:04:05"}, {1114, "Infinity"}, {1114, "2020-01-02 03:04:05 bc"},
    {1184, "2020-01-02 03:04:05"}, {1184, "2020-01-02 03:04:05+0"}, {1184, "2020-01-02 03:04:05+00:0"},
    {1184, "2020-01-02 03:04:05 BC"}, {1184, "2020-01-02 03:04:05Z"}, {1184, "2020-01-02 03:04:05+00:00:0"},
    {1184, "2020-01-02 03:04:05+00:00:00:00"}, {1184, "2020-01-02 03:04:05+0000"}, {1184, " BC"},
    {17, ""}, {17, "\\"}, {17, "\\x0"}, {17, "\\xzz"}, {17, "0a"}, {17, "\\X0a"}, {17, "\\x0a "},
    {17, "\\001"}, {17, "x0a0b"},
    {1007, ""}, {1007, "{"}, {1007, "}"}, {1007, "{1,2"}, {1007, "{1,,2}"}, {1007, "{,}"}, {1007, "{1,}"},
    {1007, "{1,2}x"}, {1007, "{1,{2}}"}, {1007, "{{1},2}"}, {1007, "[0:1]{1,2}"}, {1007, "[0:1={1}"},
    {1007, "[0:1]"}, {1007, "[a:1]={1}"}, {1007, "[0:1]="}, {1007, "{1;2}"}, {1007, "{{{{{{{1}}}}}}}"},
    {1007, "{abc}"}, {1007, "1,2"}, {1007, "{\"1}"}, {1007, "{1\"2\"}"}, {1007, "{\"1\"2}"},
    {1007, "{\"1\\"}, {1007, "{1\\2}"}, {1007, "{NULLL}"}, {1007, "{{1}}}"}, {1007, "{{1}"},
    {1009, "{a\"b}"}, {1009, "{\"a}"}, {1009, "{a{b}"}, {1009, "{\"a\"\"b\"}"}, {1009, "{}}"},
    {1020, "{(1,1),(0,0),(3,3),(2,2)"}, {1000, "{t,x}"}, {1001, "{\"\\\\x0\"}"}, {1001, "{\\x0a}"},
    {1115, "{\"2020-01-02T03:04:05\"}"}, {3807, "{\"{\"}"}, {1231, "{1.5,abc}"},
    {22, "1 x"}, {22, "1 32768"}, {22, "1,2"}, {30, "-1"}, {1006, "{\"1 x\"}"},
};

static void check(uint32_t oid, const char *text, size_t len, const tv_pgv_opts *o, const char *want) {
    tv_buf b;
    tv_buf_init(&b);
    tv_jw w;
    tv_jw_init(&w, &b, false);
    bool ok = tv_pgv_json(&w, oid, text, len, o);
    if (want && (!ok || strcmp(b.len ? b.data : "", want) != 0))
        fprintf(stderr, "oid %u text [%.*s]: got %s [%s] want [%s]\n", oid, (int)len, text, ok ? "true" : "false",
                b.len ? b.data : "", want);
    if (!want && ok) fprintf(stderr, "oid %u text [%.*s]: accepted as [%s]\n", oid, (int)len, text, b.data);
    assert_false(b.oom);
    if (want) {
        assert_true(ok);
        assert_string_equal(b.len ? b.data : "", want);
        /* the output is one JSON value */
        tv_arena a;
        tv_arena_init(&a);
        tv_json *v;
        assert_int_equal(tv_json_parse(&a, b.data, b.len, &v, NULL), TROVE_OK);
        tv_arena_fini(&a);
    } else {
        assert_false(ok);
    }
    tv_buf_fini(&b);
}

static void test_pg_values(void **state) {
    (void)state;
    for (size_t i = 0; i < sizeof pg_cases / sizeof pg_cases[0]; i++) {
        const pg_case *c = &pg_cases[i];
        tv_pgv_opts o = {.numeric_as_number = c->numeric_as_number};
        check(c->oid, c->text, strlen(c->text), &o, c->want);
        if (!c->numeric_as_number) check(c->oid, c->text, strlen(c->text), NULL, c->want); /* NULL: defaults */
    }
}

static void test_bad_values(void **state) {
    (void)state;
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        check(bad_cases[i].oid, bad_cases[i].text, strlen(bad_cases[i].text), NULL, NULL);
        tv_pgv_opts o = {.numeric_as_number = true};
        check(bad_cases[i].oid, bad_cases[i].text, strlen(bad_cases[i].text), &o, NULL);
    }
    /* the length is the value's end: bytes past it are never read */
    check(23, "12x", 2, NULL, "12");
    check(1007, "{1,2}}", 5, NULL, "[1,2]");
    check(1007, "{1,2", 3, NULL, NULL);
    check(17, "\\x0a0", 4, NULL, "\"Cg==\"");
    check(25, "a\0b", 3, NULL, "\"a\\u0000b\"");
    /* not valid UTF-8 in a string: U+FFFD, as the writer does */
    check(25, "a\xff", 2, NULL, "\"a\xef\xbf\xbd\"");
    /* types written as strings are not checked */
    check(2950, "not a uuid", 10, NULL, "\"not a uuid\"");
    check(16384, "", 0, NULL, "\"\"");
    check(12001, "{a,b}", 5, NULL, "\"{a,b}\""); /* a catalog view's array: not stable, a string */
    /* PG's array input accepts white space around elements and bounds */
    check(1007, " { 1 , 2 } ", 11, NULL, "[1,2]");
    check(1009, "{ a b , \"c\" }", 13, NULL, "[\"a b\",\"c\"]");
    check(1009, "{ null }", 8, NULL, "[null]");
    check(1007, "[1:1][+3:3]={{5}}", 17, NULL, "[[5]]");
}

/* Every prefix of every real text, under its own type and a few others:
 * false or a value, never a crash (the sanitizer build reads past nothing:
 * each prefix is copied to a buffer of its exact size). */
static void test_prefixes(void **state) {
    (void)state;
    static const uint32_t others[] = {16, 17, 20, 23, 114, 700, 1007, 1009, 1020, 1082, 1114, 1184, 1700, 22, 1006};
    size_t accepted = 0, tried = 0;
    for (size_t i = 0; i < sizeof pg_cases / sizeof pg_cases[0]; i++) {
        const char *t = pg_cases[i].text;
        size_t n = strlen(t);
        for (size_t k = 0; k <= n; k++) {
            char *copy = malloc(k ? k : 1);
            assert_non_null(copy);
            memcpy(copy, t, k);
            for (size_t j = 0; j <= sizeof others / sizeof others[0]; j++) {
                uint32_t oid = j < sizeof others / sizeof others[0] ? others[j] : pg_cases[i].oid;
                tv_pgv_opts o = {.numeric_as_number = (k & 1) != 0};
                tv_buf b;
                tv_buf_init(&b);
                tv_jw w;
                tv_jw_init(&w, &b, (k & 2) != 0);
                if (tv_pgv_json(&w, oid, copy, k, &o)) {
                    accepted++;
                    tv_arena a;
                    tv_arena_init(&a);
                    tv_json *v;
                    if (tv_json_parse(&a, b.data, b.len, &v, NULL) != TROVE_OK)
                        fail_msg("oid %u [%.*s] gave invalid JSON [%s]", oid, (int)k, copy, b.data);
                    tv_arena_fini(&a);
                }
                tried++;
                assert_false(b.oom);
                tv_buf_fini(&b);
            }
            free(copy);
        }
    }
    assert_true(accepted > 0 && accepted < tried);
}

/* Values in a document: separators, keys, pretty printing. The reference
 * document is written with the writer's own calls. */
static void test_in_document(void **state) {
    (void)state;
    for (int pretty = 0; pretty < 2; pretty++) {
        tv_buf got, want;
        tv_buf_init(&got);
        tv_buf_init(&want);
        tv_jw g, r;
        tv_jw_init(&g, &got, pretty);
        tv_jw_init(&r, &want, pretty);

        tv_jw_obj_begin(&g);
        tv_jw_keyz(&g, "b");
        assert_true(tv_pgv_json(&g, 17, "\\x0a0b", 6, NULL));
        tv_jw_keyz(&g, "e");
        assert_true(tv_pgv_json(&g, 17, "\\x", 2, NULL));
        tv_jw_keyz(&g, "a");
        assert_true(tv_pgv_json(&g, 1001, "{\"\\\\x61\",NULL,\"\\\\x6162\"}", 24, NULL));
        tv_jw_keyz(&g, "j");
        assert_true(tv_pgv_json(&g, 3802, "{\"x\": [1, {\"y\": \"z\"}], \"w\": {}}", 31, NULL));
        tv_jw_keyz(&g, "t");
        assert_true(tv_pgv_json(&g, 1184, "2020-01-02 03:04:05+00", 22, NULL));
        tv_jw_keyz(&g, "n");
        assert_true(tv_pgv_json(&g, 1007, "{{1,2},{3,NULL}}", 16, NULL));
        tv_jw_keyz(&g, "f");
        assert_true(tv_pgv_json(&g, 701, "1e+30", 5, NULL));
        tv_jw_obj_end(&g);

        tv_jw_obj_begin(&r);
        tv_jw_keyz(&r, "b");
        tv_jw_strz(&r, "Cgs=");
        tv_jw_keyz(&r, "e");
        tv_jw_strz(&r, "");
        tv_jw_keyz(&r, "a");
        tv_jw_arr_begin(&r);
        tv_jw_strz(&r, "YQ==");
        tv_jw_null(&r);
        tv_jw_strz(&r, "YWI=");
        tv_jw_arr_end(&r);
        tv_jw_keyz(&r, "j");
        tv_jw_raw(&r, "{\"x\":[1,{\"y\":\"z\"}],\"w\":{}}", 26);
        tv_jw_keyz(&r, "t");
        tv_jw_strz(&r, "2020-01-02T03:04:05Z");
        tv_jw_keyz(&r, "n");
        tv_jw_raw(&r, "[[1,2],[3,null]]", 16);
        tv_jw_keyz(&r, "f");
        tv_jw_raw(&r, "1e+30", 5);
        tv_jw_obj_end(&r);

        assert_false(got.oom);
        assert_string_equal(got.data, want.data);
        tv_buf_fini(&got);
        tv_buf_fini(&want);
    }
    /* several root values, as the writer separates them */
    tv_buf b;
    tv_buf_init(&b);
    tv_jw w;
    tv_jw_init(&w, &b, false);
    assert_true(tv_pgv_json(&w, 17, "\\x61", 4, NULL));
    assert_true(tv_pgv_json(&w, 17, "\\x62", 4, NULL));
    assert_string_equal(b.data, "\"YQ==\" \"Yg==\"");
    tv_buf_fini(&b);
}

/* json nested deeper than the writer can go from where it is: false, and
 * the buffer is not left in its failed state. */
static void test_json_depth(void **state) {
    (void)state;
    char text[2 * TV_JW_MAX_DEPTH];
    int d = TV_JW_MAX_DEPTH - 2;
    memset(text, '[', (size_t)d);
    memset(text + d, ']', (size_t)d);
    tv_buf b;
    tv_buf_init(&b);
    tv_jw w;
    tv_jw_init(&w, &b, false);
    assert_true(tv_pgv_json(&w, 114, text, 2 * (size_t)d, NULL)); /* depth 254 at the root */
    tv_buf_clear(&b);
    tv_jw_init(&w, &b, false);
    tv_jw_arr_begin(&w);
    tv_jw_arr_begin(&w);
    assert_false(tv_pgv_json(&w, 114, text, 2 * (size_t)d, NULL)); /* 256 from there */
    assert_false(b.oom);
    tv_buf_fini(&b);
}

/* Out of memory: the buffer's sticky flag, false returned. */
static void test_oom(void **state) {
    (void)state;
    char big[1000];
    big[0] = '{';
    big[1] = '"';
    for (int i = 2; i < 998; i++) big[i] = i % 2 ? '"' : '\\';
    big[998] = '"';
    big[999] = '}';
    const struct {
        uint32_t oid;
        const char *text;
        size_t len;
    } cases[] = {
        {3802, "{\"a\": [1, 2, 3]}", 16},
        {1009, big, 1000}, /* a quoted element with escapes, larger than the stack buffer */
        {17, "\\x0a0b0c", 8},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        bool failed = false;
        for (long n = 0; n < 64 && !failed; n++) {
            tv_buf b;
            tv_buf_init(&b);
            tv_jw w;
            tv_jw_init(&w, &b, false);
            tv_alloc_fail_after(n);
            bool ok = tv_pgv_json(&w, cases[i].oid, cases[i].text, cases[i].len, NULL);
            tv_alloc_fail_after(-1);
            if (!ok) {
                assert_true(b.oom); /* a failure here can only be memory */
                failed = true;
            }
            tv_buf_fini(&b);
        }
        assert_true(failed);
    }
    /* and with the allocator working the big element is there */
    tv_buf b;
    tv_buf_init(&b);
    tv_jw w;
    tv_jw_init(&w, &b, false);
    assert_true(tv_pgv_json(&w, 1009, big, 1000, NULL));
    assert_int_equal(b.len, 2 + 2 + 2 * 498);
    tv_buf_fini(&b);
}

static const struct {
    uint32_t oid;
    int32_t typmod;
    bool numeric_as_number;
    const char *want;
} map_cases[] = {
    {16, -1, false, "{\"type\":\"boolean\"}"},
    {21, -1, false, "{\"type\":\"short\"}"},
    {23, -1, false, "{\"type\":\"integer\"}"},
    {20, -1, false, "{\"type\":\"long\"}"},
    {26, -1, false, "{\"type\":\"long\"}"},
    {700, -1, false, "{\"type\":\"float\"}"},
    {701, -1, false, "{\"type\":\"double\"}"},
    {25, -1, false, "{\"type\":\"text\",\"fields\":{\"keyword\":{\"type\":\"keyword\",\"ignore_above\":256}}}"},
    {1043, 14, false, "{\"type\":\"text\",\"fields\":{\"keyword\":{\"type\":\"keyword\",\"ignore_above\":256}}}"},
    {1042, 8, false, "{\"type\":\"text\",\"fields\":{\"keyword\":{\"type\":\"keyword\",\"ignore_above\":256}}}"},
    {19, -1, false, "{\"type\":\"text\",\"fields\":{\"keyword\":{\"type\":\"keyword\",\"ignore_above\":256}}}"},
    {18, -1, false, "{\"type\":\"keyword\"}"},
    {2950, -1, false, "{\"type\":\"keyword\"}"},
    {114, -1, false, "{\"type\":\"object\",\"dynamic\":true}"},
    {3802, -1, false, "{\"type\":\"object\",\"dynamic\":true}"},
    {1082, -1, false, "{\"type\":\"date\"}"},
    {1114, -1, false, "{\"type\":\"date\"}"},
    {1184, 3, false, "{\"type\":\"date\"}"},
    {1083, -1, false, "{\"type\":\"keyword\"}"},
    {1266, -1, false, "{\"type\":\"keyword\"}"},
    {1186, -1, false, "{\"type\":\"keyword\"}"},
    {17, -1, false, "{\"type\":\"binary\"}"},
    {869, -1, false, "{\"type\":\"ip\"}"},
    {650, -1, false, "{\"type\":\"keyword\"}"}, /* trove has no ip_range */
    {829, -1, false, "{\"type\":\"keyword\"}"},
    {790, -1, false, "{\"type\":\"keyword\"}"},
    {600, -1, false, "{\"type\":\"keyword\"}"},
    {3614, -1, false, "{\"type\":\"keyword\"}"},
    {3904, -1, false, "{\"type\":\"keyword\"}"},
    {16400, -1, false, "{\"type\":\"keyword\"}"},
    {12001, -1, false, "{\"type\":\"keyword\"}"},
    /* numeric: a keyword unless numeric_as_number */
    {1700, 655366, false, "{\"type\":\"keyword\"}"},
    {1700, -1, false, "{\"type\":\"keyword\"}"},
    {1231, 655366, false, "{\"type\":\"keyword\"}"},
    /* typmods of numeric(10,2), (5,-2), (3,5), numeric, (1000,1000), (20,0), (30,20), (1,-1000),
     * (1000,300), (1000,-300), (1000,-308), (1000,19), (1000,18), (1000,-18), and numeric(10,2)[] */
    {1700, 655366, true, "{\"type\":\"scaled_float\",\"scaling_factor\":100}"},
    {1700, 329730, true, "{\"type\":\"scaled_float\",\"scaling_factor\":0.01}"},
    {1700, 196617, true, "{\"type\":\"scaled_float\",\"scaling_factor\":100000}"},
    {1700, -1, true, "{\"type\":\"double\"}"},
    {1700, 65537004, true, "{\"type\":\"double\"}"},
    {1700, 1310724, true, "{\"type\":\"scaled_float\",\"scaling_factor\":1}"},
    {1700, 1966104, true, "{\"type\":\"scaled_float\",\"scaling_factor\":1.0E20}"},
    {1700, 66588, true, "{\"type\":\"double\"}"},
    {1700, 65536304, true, "{\"type\":\"scaled_float\",\"scaling_factor\":1.0E300}"},
    {1700, 65537752, true, "{\"type\":\"scaled_float\",\"scaling_factor\":1.0E-300}"},
    {1700, 65537744, true, "{\"type\":\"double\"}"},
    {1700, 65536023, true, "{\"type\":\"scaled_float\",\"scaling_factor\":1.0E19}"},
    {1700, 65536022, true, "{\"type\":\"scaled_float\",\"scaling_factor\":1000000000000000000}"},
    {1700, 65538034, true, "{\"type\":\"scaled_float\",\"scaling_factor\":1.0E-18}"},
    {1231, 655366, true, "{\"type\":\"scaled_float\",\"scaling_factor\":100}"},
    /* arrays map as their elements */
    {1007, -1, false, "{\"type\":\"integer\"}"},
    {1009, -1, false, "{\"type\":\"text\",\"fields\":{\"keyword\":{\"type\":\"keyword\",\"ignore_above\":256}}}"},
    {1185, -1, false, "{\"type\":\"date\"}"},
    {3807, -1, false, "{\"type\":\"object\",\"dynamic\":true}"},
    {1001, -1, false, "{\"type\":\"binary\"}"},
    {1020, -1, false, "{\"type\":\"keyword\"}"},
    {22, -1, false, "{\"type\":\"short\"}"},
    {30, -1, false, "{\"type\":\"long\"}"},
    {1006, -1, false, "{\"type\":\"short\"}"},
    {1013, -1, false, "{\"type\":\"long\"}"},
};

static void test_mappings(void **state) {
    (void)state;
    for (size_t i = 0; i < sizeof map_cases / sizeof map_cases[0]; i++) {
        tv_buf b;
        tv_buf_init(&b);
        tv_jw w;
        tv_jw_init(&w, &b, false);
        tv_pgv_opts o = {.numeric_as_number = map_cases[i].numeric_as_number};
        tv_pgv_mapping(&w, map_cases[i].oid, map_cases[i].typmod, &o);
        if (strcmp(b.data, map_cases[i].want) != 0)
            fprintf(stderr, "mapping %u/%d: got %s want %s\n", map_cases[i].oid, map_cases[i].typmod, b.data,
                    map_cases[i].want);
        assert_string_equal(b.data, map_cases[i].want);
        if (!map_cases[i].numeric_as_number) {
            tv_buf_clear(&b);
            tv_jw_init(&w, &b, false);
            tv_pgv_mapping(&w, map_cases[i].oid, map_cases[i].typmod, NULL);
            assert_string_equal(b.data, map_cases[i].want);
        }
        tv_buf_fini(&b);
    }
}

/* PostgreSQL 15's array types (OID < 16384) with their element types. */
static const struct {
    uint32_t oid, elem;
} pg_arrays[] = {
    {22, 21}, {30, 26}, {143, 142}, {199, 114}, {210, 71}, {270, 75},
    {271, 5069}, {272, 81}, {273, 83}, {629, 628}, {651, 650}, {719, 718},
    {775, 774}, {791, 790}, {1000, 16}, {1001, 17}, {1002, 18}, {1003, 19},
    {1005, 21}, {1006, 22}, {1007, 23}, {1008, 24}, {1009, 25}, {1010, 27},
    {1011, 28}, {1012, 29}, {1013, 30}, {1014, 1042}, {1015, 1043}, {1016, 20},
    {1017, 600}, {1018, 601}, {1019, 602}, {1020, 603}, {1021, 700}, {1022, 701},
    {1027, 604}, {1028, 26}, {1034, 1033}, {1040, 829}, {1041, 869}, {1115, 1114},
    {1182, 1082}, {1183, 1083}, {1185, 1184}, {1187, 1186}, {1231, 1700}, {1263, 2275},
    {1270, 1266}, {1561, 1560}, {1563, 1562}, {2201, 1790}, {2207, 2202}, {2208, 2203},
    {2209, 2204}, {2210, 2205}, {2211, 2206}, {2949, 2970}, {2951, 2950}, {3221, 3220},
    {3643, 3614}, {3644, 3642}, {3645, 3615}, {3735, 3734}, {3770, 3769}, {3807, 3802},
    {3905, 3904}, {3907, 3906}, {3909, 3908}, {3911, 3910}, {3913, 3912}, {3927, 3926},
    {4073, 4072}, {4090, 4089}, {4097, 4096}, {4192, 4191}, {5039, 5038}, {6150, 4451},
    {6151, 4532}, {6152, 4533}, {6153, 4534}, {6155, 4535}, {6157, 4536}, {10000, 10001},
    {10002, 10003}, {10004, 10005}, {10006, 10007}, {10008, 10009}, {10010, 10011}, {10012, 10013},
    {10014, 10015}, {10016, 10017}, {10018, 10019}, {10020, 10021}, {10022, 10023}, {10024, 10025},
    {10026, 10027}, {10028, 10029}, {10030, 10031}, {10032, 10033}, {10034, 10035}, {10036, 10037},
    {10038, 10039}, {10040, 10041}, {10042, 10043}, {10044, 10045}, {10046, 10047}, {10048, 10049},
    {10050, 10051}, {10052, 1248}, {10053, 10054}, {10055, 10056}, {10057, 2842}, {10058, 2843},
    {10059, 10060}, {10061, 10062}, {10063, 10064}, {10065, 10066}, {10067, 10068}, {10069, 10070},
    {10071, 10072}, {10073, 10074}, {10075, 10076}, {10077, 10078}, {10079, 10080}, {10081, 10082},
    {10083, 10084}, {10085, 10086}, {10087, 10088}, {10089, 10090}, {10091, 10092}, {10093, 4066},
    {10094, 10095}, {10096, 10097}, {10098, 10099}, {10100, 10101}, {10102, 10103}, {10104, 10105},
    {10106, 10107}, {10108, 10109}, {10110, 10111}, {10112, 6101}, {10113, 10114}, {12001, 12002},
    {12006, 12007}, {12011, 12012}, {12015, 12016}, {12019, 12020}, {12024, 12025}, {12029, 12030},
    {12034, 12035}, {12039, 12040}, {12044, 12045}, {12049, 12050}, {12054, 12055}, {12059, 12060},
    {12064, 12065}, {12069, 12070}, {12074, 12075}, {12078, 12079}, {12082, 12083}, {12086, 12087},
    {12091, 12092}, {12096, 12097}, {12100, 12101}, {12105, 12106}, {12111, 12112}, {12115, 12116},
    {12119, 12120}, {12123, 12124}, {12127, 12128}, {12131, 12132}, {12135, 12136}, {12139, 12140},
    {12143, 12144}, {12148, 12149}, {12153, 12154}, {12158, 12159}, {12162, 12163}, {12167, 12168},
    {12171, 12172}, {12176, 12177}, {12180, 12181}, {12184, 12185}, {12189, 12190}, {12193, 12194},
    {12197, 12198}, {12202, 12203}, {12206, 12207}, {12210, 12211}, {12215, 12216}, {12219, 12220},
    {12223, 12224}, {12228, 12229}, {12233, 12234}, {12237, 12238}, {12241, 12242}, {12245, 12246},
    {12250, 12251}, {12254, 12255}, {12258, 12259}, {12263, 12264}, {12267, 12268}, {12272, 12273},
    {12276, 12277}, {12281, 12282}, {12286, 12287}, {12290, 12291}, {12294, 12295}, {12298, 12299},
    {12303, 12304}, {12308, 12309}, {12313, 12314}, {12318, 12319}, {12323, 12324}, {12328, 12329},
    {12333, 12334}, {12337, 12338}, {13220, 13221}, {13223, 13224}, {13225, 13226}, {13228, 13229},
    {13231, 13232}, {13233, 13234}, {13237, 13238}, {13242, 13243}, {13246, 13247}, {13251, 13252},
    {13256, 13257}, {13261, 13262}, {13266, 13267}, {13271, 13272}, {13276, 13277}, {13281, 13282},
    {13286, 13287}, {13291, 13292}, {13296, 13297}, {13301, 13302}, {13306, 13307}, {13311, 13312},
    {13316, 13317}, {13321, 13322}, {13326, 13327}, {13330, 13331}, {13335, 13336}, {13340, 13341},
    {13345, 13346}, {13349, 13350}, {13354, 13355}, {13359, 13360}, {13363, 13364}, {13368, 13369},
    {13373, 13374}, {13378, 13379}, {13383, 13384}, {13387, 13388}, {13392, 13393}, {13397, 13398},
    {13402, 13403}, {13407, 13408}, {13412, 13413}, {13417, 13418}, {13422, 13423}, {13426, 13427},
    {13431, 13432}, {13436, 13437}, {13441, 13442}, {13446, 13447}, {13451, 13452}, {13455, 13456},
    {13460, 13461}, {13464, 13465}, {13469, 13470}, {13474, 13475}, {13479, 13480}, {13484, 13485},
    {13489, 13490}, {13494, 13495}, {13499, 13500}, {13504, 13505}, {13508, 13509}, {13512, 13513},
    {13516, 13517}, {13520, 13521}, {13525, 13526}, {13529, 13530}, {13533, 13534}, {13538, 13539},
    {13542, 13543}, {13546, 13547}, {13551, 13552}, {13556, 13557},
};

static void test_array_elem(void **state) {
    (void)state;
    size_t n = 0;
    for (size_t i = 0; i < sizeof pg_arrays / sizeof pg_arrays[0]; i++) {
        uint32_t oid = pg_arrays[i].oid, want = oid < 10000 ? pg_arrays[i].elem : 0;
        if (tv_pgv_array_elem(oid) != want) fprintf(stderr, "array %u: got %u\n", oid, tv_pgv_array_elem(oid));
        assert_int_equal(tv_pgv_array_elem(oid), want);
        n += want != 0;
    }
    assert_int_equal(sizeof pg_arrays / sizeof pg_arrays[0], 292);
    assert_int_equal(n, 83);
    /* every other OID below 10000 is no array */
    for (uint32_t oid = 0; oid < 10000; oid++) {
        bool listed = false;
        for (size_t i = 0; i < sizeof pg_arrays / sizeof pg_arrays[0] && !listed; i++) listed = pg_arrays[i].oid == oid;
        if (!listed) assert_int_equal(tv_pgv_array_elem(oid), 0);
    }
    assert_int_equal(tv_pgv_array_elem(16384), 0);
    assert_int_equal(tv_pgv_array_elem(UINT32_MAX), 0);
    assert_int_equal(tv_pgv_array_elem(1007 + 65536), 0);
    /* trove's own: an array of strings written as they are (an enum's) */
    assert_int_equal(tv_pgv_array_elem(TV_PGV_STRING_ARRAY), TV_PGV_STRING);
    assert_int_equal(tv_pgv_array_elem(TV_PGV_STRING), 0);
    static const char text[] = "{sad,NULL,\"NULL\",\"a \\\"b\\\" c\",\"\"}";
    check(TV_PGV_STRING_ARRAY, text, sizeof text - 1, NULL, "[\"sad\",null,\"NULL\",\"a \\\"b\\\" c\",\"\"]");
    check(TV_PGV_STRING_ARRAY, "{{a,b},{c,d}}", 13, NULL, "[[\"a\",\"b\"],[\"c\",\"d\"]]");
    check(TV_PGV_STRING, "happy", 5, NULL, "\"happy\"");
    tv_buf b;
    tv_buf_init(&b);
    tv_jw w;
    tv_jw_init(&w, &b, false);
    tv_pgv_mapping(&w, TV_PGV_STRING_ARRAY, -1, NULL);
    assert_string_equal(b.data, "{\"type\":\"keyword\"}");
    tv_buf_fini(&b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pg_values),   cmocka_unit_test(test_bad_values), cmocka_unit_test(test_prefixes),
        cmocka_unit_test(test_in_document), cmocka_unit_test(test_json_depth), cmocka_unit_test(test_oom),
        cmocka_unit_test(test_mappings),    cmocka_unit_test(test_array_elem),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
