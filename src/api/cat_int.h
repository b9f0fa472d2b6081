/*
 * cat_int.h — the _cat table engine of h_cat.c (OpenSearch's RestTable),
 * shared by the _cat handlers of the api layer's h_cat*.c and h_snapshot.c
 * files. Private to src/api.
 *
 * A handler fills a tv_cat_table (rows of cells over a static column list)
 * and calls tv_cat_respond, which applies `h`, `v`, `help`, `s`,
 * `format=json` and `bytes` as OpenSearch does. Cells live in the request
 * arena; a failed allocation sets r->oom.
 */
#ifndef TROVE_API_CAT_INT_H
#define TROVE_API_CAT_INT_H

#include "api.h"

typedef struct tv_cat_col {
    const char *name;
    const char *aliases; /* comma list */
    const char *desc;
    bool right;
    bool def;
} tv_cat_col;

typedef struct tv_cat_cell {
    const char *s; /* NULL: no value */
    bool num;      /* compares as a number */
    int64_t n;
} tv_cat_cell;

typedef struct tv_cat_table {
    const tv_cat_col *cols;
    size_t ncols;
    tv_cat_cell *cells; /* rows * ncols */
    size_t nrows, cap;
} tv_cat_table;

/* epoch / timestamp columns (Table.startHeadersWithTimestamp) */
#define TV_CAT_TS_COLS                                                     \
    {"epoch", "t,time", "seconds since 1970-01-01 00:00:00", false, true}, \
    {                                                                      \
        "timestamp", "ts,hms,hhmmss", "time in HH:MM:SS", false, true      \
    }

/* Appends an empty row (false: out of memory, r->oom set). */
bool tv_cat_add_row(tv_req *r, tv_cat_table *t);
tv_cat_cell *tv_cat_at(tv_cat_table *t, size_t row, size_t c);
/* Cells of the last row: a string (borrowed for the request), a number, a
 * byte size (ByteSizeValue or the `bytes` unit), a duration in
 * milliseconds (TimeValue.toString or the `time` unit), epoch seconds and
 * HH:MM:SS of a time in milliseconds. */
void tv_cat_set_str(tv_cat_table *t, size_t c, const char *s);
void tv_cat_set_num(tv_req *r, tv_cat_table *t, size_t c, int64_t v);
void tv_cat_set_bytes(tv_req *r, tv_cat_table *t, size_t c, int64_t b);
void tv_cat_set_time(tv_req *r, tv_cat_table *t, size_t c, int64_t ms);
void tv_cat_set_epoch(tv_req *r, tv_cat_table *t, size_t c_epoch, size_t c_hms, int64_t ms);
/* epoch and timestamp of now in columns 0 and 1. */
void tv_cat_set_timestamp(tv_req *r, tv_cat_table *t);
/* `format` other than text or json answers 400 (false). */
bool tv_cat_check_format(tv_req *r);
/* Writes the table as the request asks. */
void tv_cat_respond(tv_req *r, tv_cat_table *t);

#endif /* TROVE_API_CAT_INT_H */
