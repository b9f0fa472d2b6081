/*
 * engine_int.h — private declarations of the engine (engine*.c) and hooks
 * its unit tests use. Nothing outside src/index/engine*.c and
 * tests/unit/test_index_engine*.c includes this header.
 */
#ifndef TROVE_INDEX_ENGINE_INT_H
#define TROVE_INDEX_ENGINE_INT_H

#include "index/index.h"

/* Merge policy: this many adjacent segments of one size band merge into one
 * (Lucene's LogMergePolicy mergeFactor). */
#define TV_ENGINE_MERGE_FACTOR 10
/* Safety valve: above this many segments the cheapest window of
 * TV_ENGINE_MERGE_FACTOR adjacent segments is merged whatever the bands say. */
#define TV_ENGINE_MAX_SEGMENTS 40
/* A merge of more live documents than this runs on a thread of its own,
 * off the writer lock, so that writes and refreshes go on during it (a
 * merge of 100,000 documents takes about a second). Smaller ones run inside
 * refresh. */
#define TV_ENGINE_BG_MERGE_DOCS 50000u
/* Tests only: called by a background merge between its merge and its
 * install (NULL: nothing). */
extern void (*tv_engine_bg_merge_hook)(void);
/* The write buffer is sealed into an unpublished ("pending") segment when it
 * holds this many bytes or documents (OpenSearch's indexing buffer flushes
 * Lucene's RAM buffer without opening a new reader in the same way). With
 * tokens kept compactly (about 2.9 KB of arena per 1.4 KB document, plus a
 * term table bounded by the vocabulary, ~6.5 MB for 50,000 terms), 16 MiB
 * holds about 3,300 such documents and 32 MiB about 9,500, where the former
 * 64 MiB of full tv_tokens held 5,000-6,000. 16 MiB because the peak of
 * indexing is set by sealing and merging, not by the buffer: with 32 MiB,
 * 100,000 documents peaked at 735 MB (ten 9,500-document segments merged
 * into one), with 16 MiB at 415 MB (64 MiB of tv_tokens: 492 MB). */
#define TV_ENGINE_BUFFER_MAX_BYTES ((size_t)16 << 20)
#define TV_ENGINE_BUFFER_MAX_DOCS 100000u
/* index.search.idle.after default. */
#define TV_ENGINE_SEARCH_IDLE_MS 30000
/* index.gc_deletes default: how long a delete tombstone keeps the version. */
#define TV_ENGINE_GC_DELETES_MS 60000

/*
 * Test hook: moves the engine's monotonic clock forward by ms for every
 * index in the process (refresh_interval, search-idle and gc_deletes
 * decisions read this clock). Thread-safe.
 */
void tv_engine_test_advance_clock(int64_t ms);

/* The engine's clock in milliseconds (monotonic plus the test offset). */
int64_t tv_engine_now_ms(void);

/* Number of documents in the unrefreshed write buffer (live ones). */
uint32_t tv_index_buffered_docs(tv_index *idx);

/* Seals the write buffer into an unpublished segment (what clone and a full
 * buffer do): realtime get still sees the docs, search not until refresh. */
tv_status tv_index_seal(tv_index *idx);

/* Translog record types (the format is in translog_ops.c). */
enum { TV_TLOG_INDEX = 1, TV_TLOG_DELETE = 2, TV_TLOG_MAPPING = 3, TV_TLOG_SETTINGS = 4 };

/* Appends an INDEX (with source) or DELETE record of m to b. */
void tv_tlog_encode_write(tv_buf *b, uint8_t type, const tv_doc_meta *m, const char *source,
                          size_t source_len);

/* The bytes tv_tlog_encode_write would append, without encoding (the
 * in-memory translog statistics count them). */
size_t tv_tlog_write_size(uint8_t type, const tv_doc_meta *m, size_t source_len);
/* The store's frame around each translog record (store.h: length and two
 * checksums). */
#define TV_TLOG_FRAME_BYTES 12u

#endif /* TROVE_INDEX_ENGINE_INT_H */
