/*
 * parse.h — helpers for every parser of a search body's JSON: the query
 * DSL's files (dsl.c: dispatcher, bool, errors; dsl_leaf.c: leaf and
 * compound queries; ...) and, above, the parsers of the other body
 * sections (fetch: highlight, inner_hits, fields; aggs; search: the body,
 * suggest). Jackson's token names, Java's number parsing, OpenSearch's
 * type errors.
 */
#ifndef TROVE_QUERY_PARSE_H
#define TROVE_QUERY_PARSE_H

#include "query/query.h"

/* Jackson token name of a value's first token ("START_OBJECT", ...). */
const char *tv_dsl_token_name(const tv_json *v);
/* Text of a scalar (string, number as written, true/false). */
bool tv_dsl_scalar_text(const tv_json *v, const char **s, size_t *len);
tv_status tv_dsl_float(tv_dsl *d, const char *qname, const char *key, const tv_json *v, float *out);
tv_status tv_dsl_int(tv_dsl *d, const char *qname, const char *key, const tv_json *v, int64_t *out);
tv_status tv_dsl_bool(tv_dsl *d, const char *qname, const char *key, const tv_json *v, bool *out);
/* XContentParser.intValue() / floatValue() as OpenSearch's hand-written
 * builders call them (Jackson conversions, Java string parsing, Jackson's
 * and Java's exceptions). */
tv_status tv_dsl_java_int(tv_dsl *d, const tv_json *v, int32_t *out);
tv_status tv_dsl_java_float(tv_dsl *d, const tv_json *v, float *out);
/* Java's Double.parseDouble (after String.trim); false: NumberFormatException. */
bool tv_java_parse_double(const char *s, size_t n, double *out);
/* number_format_exception as Double.parseDouble words it for s. */
tv_status tv_dsl_nfe(tv_dsl *d, const char *s, size_t n);
/* " did you mean [x]?" for an unknown name among candidates (dsl.c). */
void tv_dsl_did_you_mean(const char *name, size_t len, const char *const *cands, size_t ncands, char *out, size_t cap);
tv_status tv_dsl_msm(tv_dsl *d, const tv_json *v, int32_t n, int32_t *out);
tv_status tv_dsl_parse_filter(tv_dsl *d, const tv_json *q, tv_query **out);
tv_query *tv_q_bool(tv_dsl *d, tv_query **must, uint32_t nmust, tv_query **should,
                    uint32_t nshould, int32_t msm);

/* TextFieldType.prefixQuery on a text field with index_prefixes (dsl_leaf.c):
 * when f has a prefix sub-field whose lengths accept the prefix's
 * (PrefixFieldType.accept: min_chars - 1 <= UTF-16 length <= max_chars),
 * *out is ConstantScore(term on "<f>._index_prefix"), or for a prefix one
 * char short of min_chars ConstantScore(prefix field's terms of exactly
 * min_chars, or f's term equal to the prefix); else *out stays NULL and
 * the caller builds the ordinary prefix query. */
tv_status tv_dsl_index_prefix(tv_dsl *d, const tv_field *f, const char *p, size_t n, tv_query **out);

/* TextFieldType.phraseQuery on a text field with index_phrases
 * (dsl_leaf.c): for slop 0 and tokens at consecutive positions, the
 * phrase of their 2-shingles on "<f>._index_phrase" (a term query when
 * there are two tokens); else *out stays NULL. */
struct tv_tokens;
tv_status tv_dsl_index_phrase(tv_dsl *d, const tv_field *f, const struct tv_tokens *toks, uint32_t slop,
                              tv_query **out);

/* Analyzed text with stacked tokens or a token graph (dsl_synonym.c):
 * tv_tokens_are_graph says whether some token spans positions
 * (positionLength > 1) and sets *stacked when tokens share a position.
 * tv_dsl_token_clauses: QueryBuilder.analyzeMultiBoolean /
 * analyzeGraphBoolean's positional clauses (a term, a SynonymQuery, or the
 * OR of a segment's side paths, phrases when auto_phrase), which the
 * caller joins with its operator and minimum_should_match.
 * tv_dsl_graph_phrase: analyzeGraphPhrase (slop > 0: the OR of every
 * path's phrase; slop 0: spans, refused). tv_q_synonym: Lucene's
 * SynonymQuery over n >= 2 tokens' terms. */
bool tv_tokens_are_graph(const struct tv_tokens *toks, bool *stacked);
tv_status tv_dsl_token_clauses(tv_dsl *d, const tv_field *f, const struct tv_tokens *toks,
                               bool auto_phrase, tv_query ***clauses, uint32_t *nclauses);
tv_status tv_dsl_graph_phrase(tv_dsl *d, const tv_field *f, const struct tv_tokens *toks,
                              uint32_t slop, tv_query **out);
struct tv_token;
tv_query *tv_q_synonym(tv_dsl *d, const tv_field *f, const struct tv_token *const *toks, uint32_t n);

/* TextFieldType.phrasePrefixQuery on a text field with index_prefixes
 * (createPhrasePrefixQuery with a prefix field; dsl_leaf.c): when slop is
 * 0 and every last-position term has min_chars..max_chars UTF-16 units,
 * one position is a term query on "<f>._index_prefix" (SynonymQuery of
 * one term) and more are refused (SpanNearQuery with a field-masked
 * prefix span: spans are not reproduced); else *out stays NULL. `off`:
 * where the error points. */
tv_status tv_dsl_index_phrase_prefix(tv_dsl *d, const tv_field *f, const struct tv_tokens *toks, uint32_t slop,
                                     uint32_t off, tv_query **out);

tv_status tv_dsl_parse_match_all(tv_dsl *d, const tv_json *body, tv_query **out);
tv_status tv_dsl_parse_match_none(tv_dsl *d, const tv_json *body, tv_query **out);
tv_status tv_dsl_parse_term(tv_dsl *d, const tv_json *body, tv_query **out);
tv_status tv_dsl_parse_terms(tv_dsl *d, const tv_json *body, tv_query **out);
tv_status tv_dsl_parse_match(tv_dsl *d, const tv_json *body, tv_query **out);
tv_status tv_dsl_parse_match_phrase(tv_dsl *d, const tv_json *body, tv_query **out);
tv_status tv_dsl_parse_match_phrase_prefix(tv_dsl *d, const tv_json *body, tv_query **out);
tv_status tv_dsl_parse_multi_match(tv_dsl *d, const tv_json *body, tv_query **out);
tv_status tv_dsl_parse_match_bool_prefix(tv_dsl *d, const tv_json *body, tv_query **out);
/* roaring.c: IntegerFieldType.bitmapQuery of serialized bitmap bytes (or
 * of their base64 text) on field f; off: where errors point. */
tv_status tv_q_bitmap(tv_dsl *d, const tv_field *f, const void *bytes, size_t len, uint32_t off, tv_query **out);
tv_status tv_q_bitmap_base64(tv_dsl *d, const tv_field *f, const char *s, size_t n, uint32_t off, tv_query **out);
/* dsl_geo.c */
tv_status tv_dsl_parse_geo_shape(tv_dsl *d, const tv_json *body, tv_query **out);
tv_status tv_dsl_parse_geo_bounding_box(tv_dsl *d, const tv_json *body, tv_query **out);
/* GeoUtils.parseGeoPoint: [lon, lat], {lat, lon}, "lat,lon" or a geohash
 * (dsl_distance.c). */
tv_status tv_dsl_geo_point(tv_dsl *d, const tv_json *v, double *lat, double *lon);
/* The node of a geo query (dsl_geo.c): a TV_Q_EXT on field f planned by
 * plan over state, or a match_none when state is NULL (an unmapped field,
 * an empty shape); its boost times boost. */
tv_status tv_dsl_geo_node(tv_dsl *d, const tv_field *f,
                          tv_status (*plan)(tv_query *q, const tv_segview *sv, struct tv_plan_ctx *ctx, tv_iter **out),
                          void *state, float boost, tv_query **out);
/* dsl_geo_distance.c: the geo_distance query; distances in meters,
 * GeoDistance.ARC (SloppyMath.haversinMeters) and PLANE
 * (GeoUtils.planeDistance); tv_geo_unit: DistanceUnit.fromString's
 * meters per unit (0: no unit of that name); tv_geo_from_meters:
 * DistanceUnit.fromMeters; tv_geo_normalize: GeoUtils.normalizePoint. */
tv_status tv_dsl_parse_geo_distance(tv_dsl *d, const tv_json *body, tv_query **out);
double tv_geo_haversin_sort_key(double lat1, double lon1, double lat2, double lon2);
double tv_geo_key_meters(double key);
double tv_geo_arc_meters(double lat1, double lon1, double lat2, double lon2);
double tv_geo_plane_meters(double lat1, double lon1, double lat2, double lon2);
double tv_geo_unit(const char *s, size_t n);
/* DistanceUnit.DEFAULT.parse(s, METERS): a number with an optional unit
 * suffix, in meters; false when Double.parseDouble refuses the number. */
bool tv_geo_parse_meters(const char *s, size_t n, double *out);
/* GeoUtils.parseGeoPoint of a string: "lat,lon" or a geohash; false with
 * OpenSearch's message in msg (dsl_distance.c). */
bool tv_geo_parse_string(const char *s, size_t n, double *lat, double *lon, char *msg, size_t cap);
double tv_geo_from_meters(double d, double unit_m);
void tv_geo_normalize(double *lat, double *lon);
/* dsl_distance.c */
tv_status tv_dsl_parse_distance_feature(tv_dsl *d, const tv_json *body, tv_query **out);
/* DateFieldType.parseToLong of a query value on date field f (date math,
 * the field's format): epoch ms, or ns for date_nanos (dsl_leaf.c). */
tv_status tv_dsl_date_value(tv_dsl *d, const tv_field *f, const tv_json *v, bool round_up, int64_t *out);
tv_status tv_dsl_parse_prefix(tv_dsl *d, const tv_json *body, tv_query **out);
tv_status tv_dsl_parse_range(tv_dsl *d, const tv_json *body, tv_query **out);
tv_status tv_dsl_parse_exists(tv_dsl *d, const tv_json *body, tv_query **out);
tv_status tv_dsl_parse_ids(tv_dsl *d, const tv_json *body, tv_query **out);
tv_status tv_dsl_parse_constant_score(tv_dsl *d, const tv_json *body, tv_query **out);
tv_status tv_dsl_parse_dis_max(tv_dsl *d, const tv_json *body, tv_query **out);
tv_status tv_dsl_parse_boosting(tv_dsl *d, const tv_json *body, tv_query **out);

#endif /* TROVE_QUERY_PARSE_H */
