/*
 * automaton.h — finite automata over Unicode code points for the
 * term-enumerating queries (regexp, wildcard, prefix, fuzzy); the
 * highlighter, the suggesters and the terms aggregation's include/exclude
 * use them too.
 *
 * Every constructor compiles its pattern to a deterministic automaton
 * (tv_automaton) whose transitions are sorted, disjoint code point ranges;
 * tv_automaton_run() decodes a term's UTF-8 bytes and takes one transition
 * per code point (binary search over the state's ranges, or a direct table
 * for ASCII), so matching is linear in the term length. States that cannot
 * reach an accepting state are removed, so a run stops at the first byte
 * that rules a term out, and the literal prefix every accepted term starts
 * with is available for seeking the term dictionary.
 *
 * Ownership: automata are allocated in the arena passed to the constructor
 * and live as long as it; nothing needs freeing. Construction uses
 * temporary heap memory (tv_malloc) that is released before returning.
 *
 * Errors (tv_error filled, err may be NULL):
 *   TROVE_EARG         malformed pattern, with Lucene's RegExp messages
 *                      ("expected ')' at position 5", "unexpected
 *                      end-of-string", "invalid range: from (122) cannot be
 *                      > to (97)" ...);
 *   TROVE_ETOOCOMPLEX  determinizing needs more effort than the limit:
 *                      "Determinizing automaton with N states and M
 *                      transitions would require more than LIMIT effort."
 *                      (Lucene's TooComplexToDeterminizeException);
 *   TROVE_ENOMEM.
 *
 * Thread safety: a built automaton is immutable and may be run from any
 * number of threads.
 */
#ifndef TROVE_QUERY_AUTOMATON_H
#define TROVE_QUERY_AUTOMATON_H

#include "util/util.h"

/* Lucene RegExp syntax flags (the values are Lucene's). */
#define TV_RE_INTERSECTION 0x0001 /* & */
#define TV_RE_COMPLEMENT 0x0002   /* ~ */
#define TV_RE_EMPTY 0x0004        /* # */
#define TV_RE_ANYSTRING 0x0008    /* @ */
#define TV_RE_AUTOMATON 0x0010    /* <identifier> (no provider: always "not found") */
#define TV_RE_INTERVAL 0x0020     /* <n-m> */
#define TV_RE_ALL 0x00ff
#define TV_RE_NONE 0x0000
/* Matching flag: ASCII letters of literal characters match either case. */
#define TV_RE_CASE_INSENSITIVE 0x0100

/* Lucene's Operations.DEFAULT_DETERMINIZE_WORK_LIMIT (OpenSearch's default
 * max_determinized_states). */
#define TV_AUTOMATON_DEFAULT_LIMIT 10000

/* The largest code point; the automaton alphabet is [0, TV_MAX_CP]. */
#define TV_MAX_CP 0x10FFFFu

typedef struct tv_automaton tv_automaton;

/*
 * Parses OpenSearch's regexp "flags" string: names separated by '|'
 * (ALL, NONE, ANYSTRING, COMPLEMENT, EMPTY, INTERSECTION, INTERVAL; case
 * insensitive, surrounding spaces ignored; empty string = ALL as
 * OpenSearch's RegexpFlag.resolveValue). Returns false and names the bad
 * token in err (illegal_argument_exception "Unknown regexp flag [x]") on
 * an unknown name.
 */
bool tv_regexp_parse_flags(const char *s, size_t len, int *out, tv_error *err);

/*
 * Compiles a Lucene regular expression (the whole term must match) with
 * syntax `flags` (TV_RE_*, optionally | TV_RE_CASE_INSENSITIVE), spending
 * at most `work_limit` determinization effort (Lucene's
 * determinizeWorkLimit; <= 0 means the default).
 */
tv_status tv_regexp_compile(const char *re, size_t len, int flags, int work_limit, tv_arena *arena,
                            tv_automaton **out, tv_error *err);

/* Lucene's WildcardQuery: `*` any string, `?` any code point, `\` escapes
 * the next code point (a trailing `\` is literal). case_insensitive: every
 * literal code point also matches its Java upper/lower case twin
 * (OpenSearch's AutomatonQueries.toCaseInsensitiveWildcardAutomaton). */
tv_status tv_wildcard_compile(const char *pat, size_t len, bool case_insensitive, int work_limit,
                              tv_arena *arena, tv_automaton **out, tv_error *err);

/* Terms starting with prefix (case_insensitive as for wildcards). */
tv_status tv_prefix_compile(const char *prefix, size_t len, bool case_insensitive,
                            tv_arena *arena, tv_automaton **out, tv_error *err);

/*
 * Lucene's LevenshteinAutomata: terms within max_edits (0..2) edits of
 * term, counted in code points, whose first prefix_len code points equal
 * the term's; transpositions of adjacent code points count as one edit
 * when `transpositions` (Damerau, optimal string alignment).
 */
tv_status tv_levenshtein_compile(const char *term, size_t len, int max_edits, int prefix_len,
                                 bool transpositions, tv_arena *arena, tv_automaton **out,
                                 tv_error *err);

/* True when the automaton accepts the UTF-8 bytes [s, s+len). Invalid
 * UTF-8 decodes as U+FFFD per bad byte. */
bool tv_automaton_run(const tv_automaton *a, const char *s, size_t len);
/* One step of enumerating sorted terms against the automaton: returns
 * whether term is accepted; when it is not and it died, writes into out
 * (room for len + 4 bytes) the smallest byte string after term that an
 * accepted term could start from, and its length in *out_len (0 when no
 * later term can be accepted: the enumeration is over); *out_len is
 * SIZE_MAX when there is nothing to skip (go on with the next term). */
bool tv_automaton_next(const tv_automaton *a, const char *term, size_t len, char *out, size_t *out_len);

/*
 * tv_automaton_next for a run of terms in sorted order, each resuming from
 * the DFA state after the bytes it shares with the one before (front-coded
 * term dictionaries give that length for free). The states live in the
 * caller's arena. (Terms without the tail suffix, when there is one, are
 * best skipped before they reach the cursor: tv_automaton_tail_suffix.)
 */
typedef struct tv_automaton_cursor {
    const tv_automaton *a;
    int32_t *states; /* states[i]: after the previous term's first i bytes; < 0 inside a code point */
    size_t cap;      /* longest term resumable (longer ones run from the start) */
    size_t valid;    /* states[0..valid] hold for the previous term */
} tv_automaton_cursor;
/* False when out of memory. max_len: the longest term expected. */
bool tv_automaton_cursor_init(tv_automaton_cursor *c, const tv_automaton *a, size_t max_len,
                              tv_arena *arena);
/* As tv_automaton_next; shared: how many leading bytes term has in common
 * with the term passed before (0 for the first, or after a seek). */
bool tv_automaton_cursor_next(tv_automaton_cursor *c, const char *term, size_t len, size_t shared,
                              char *out, size_t *out_len);

/* The literal UTF-8 prefix every accepted string starts with (may be
 * empty; borrowed from the automaton). */
const char *tv_automaton_prefix(const tv_automaton *a, size_t *len);

/* The literal UTF-8 suffix every accepted string ends with, when no run
 * can die past the literal prefix (so an enumeration of terms under the
 * prefix may skip terms without it and lose no seek); else NULL. */
const char *tv_automaton_tail_suffix(const tv_automaton *a, size_t *len);

/* True when the automaton accepts nothing. */
bool tv_automaton_is_empty(const tv_automaton *a);
/* True when it accepts every string (a `*` wildcard, `.*`, `@`). */
bool tv_automaton_is_total(const tv_automaton *a);
/* When it accepts exactly one string, returns true and that string. */
bool tv_automaton_single(const tv_automaton *a, const char **s, size_t *len);
/* Number of DFA states (for tests and limits). */
uint32_t tv_automaton_states(const tv_automaton *a);

/* tv_term_matcher.accept adapter: state is a const tv_automaton *. */
bool tv_automaton_accept(const void *state, const char *term, size_t len);

/*
 * Edit distance between two UTF-8 strings in code points (Levenshtein, or
 * optimal-string-alignment Damerau when transpositions), capped: returns
 * max + 1 when the distance exceeds max.
 */
int tv_edit_distance(const char *a, size_t alen, const char *b, size_t blen, int max,
                     bool transpositions);

/* Number of code points of UTF-8 bytes (Java's codePointCount). */
size_t tv_cp_count(const char *s, size_t len);

/*
 * OpenSearch's Fuzziness.asDistance for a term: "AUTO" / "AUTO:low,high"
 * (0 below low code points, 1 below high, else 2; defaults 3 and 6) or
 * "0".."2" (also "1.0"-style floats). Returns -1 when the spec is invalid.
 */
int tv_fuzziness_distance(const char *spec, size_t spec_len, const char *term, size_t term_len);

#endif /* TROVE_QUERY_AUTOMATON_H */
