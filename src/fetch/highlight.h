/*
 * highlight.h — the _search `highlight` option (search.c and inner_hits.c
 * use it).
 *
 * Three steps, matching where OpenSearch does the work:
 *   tv_hl_parse  the body's "highlight" object (HighlightBuilder.fromXContent:
 *                ObjectParser names, types and errors), once per request;
 *   tv_hl_bind   per target, after its query is parsed: the field patterns
 *                expanded over the mapping, options merged (field > global >
 *                defaults), highlight_query parsed against the target's
 *                mapping, and the query terms that apply to each field
 *                gathered (HighlightBuilder.build + HighlightPhase's
 *                contextBuilders);
 *   tv_hl_write  per hit, in the fetch phase: `"highlight":{...}` from the
 *                hit's _source (unified or plain highlighter), written after
 *                "_source"/"fields" and before "sort" as SearchHit does.
 *
 * Everything is allocated in the request arena given to parse/bind; nothing
 * needs freeing.
 */
#ifndef TROVE_FETCH_HIGHLIGHT_H
#define TROVE_FETCH_HIGHLIGHT_H

#include "query/query.h"

typedef struct tv_hl tv_hl;               /* the parsed option (request) */
typedef struct tv_hl_target tv_hl_target; /* bound to one target */

/* Parses the "highlight" value (any JSON type: non-objects get
 * SearchSourceBuilder's error). *out: arena-owned. Errors as OpenSearch's
 * parser gives them (x_content_parse_exception, parsing_exception). */
tv_status tv_hl_parse(tv_dsl *d, const tv_json *v, tv_hl **out);

/* Binds hl to target t whose search query is q (already rewritten; may be
 * NULL for match_all). d->mapping must be t's. *out: arena-owned, borrowed
 * pointers into q and the mapping (valid while the snapshot is held).
 * Errors: highlight_query parse errors (as the query DSL's). */
tv_status tv_hl_bind(tv_dsl *d, const tv_hl *hl, const tv_search_target *t, const tv_query *q,
                     tv_hl_target **out);

/* Writes "highlight":{...} for one hit (nothing when no field has a
 * fragment). src is the hit's _source JSON (NULL: nothing to highlight),
 * seg_doc its segment-local doc id (Lucene's docId in OpenSearch's
 * max_analyzed_offset message), id its _id. Fetch-phase failures set
 * err->index (shard failures). Scratch memory comes from arena. */
tv_status tv_hl_write(tv_hl_target *ht, tv_arena *arena, const char *src, size_t src_len,
                      uint32_t seg_doc, const char *id, size_t id_len, tv_jw *out, tv_error *err);

#endif /* TROVE_FETCH_HIGHLIGHT_H */
