// xapian_peer — the Xapian 1.4 peer of bench/fulltext (see ../README.md, "The peer protocol").
//
//     xapian-peer INDEX_DIR DOCS.ndjson
//
// Indexes the "body" of every NDJSON line (decoded by ../ndjson.h; a malformed line is an error,
// a line without a "body" string an empty document) into a Xapian::WritableDatabase at
// INDEX_DIR/build (TermGenerator, no stemmer, STEM_NONE, positions on), commits, compacts it into
// INDEX_DIR/db, prints READY<TAB>{json}, then answers MODE<TAB>QUERY lines on stdin, one line each,
// until EOF.
//
// Query translation (the README's query_string forms, default operator OR):
//
//   word          Query(term)                      the word run through the same TermGenerator as
//                                                  the documents; if it splits ("e-mail") the
//                                                  pieces form an OP_PHRASE, like FTS5 does
//   a b           OP_OR
//   +a +b         OP_AND
//   +a b          OP_AND_MAYBE (b only scores, as in Lucene)
//   -a            OP_AND_NOT (a query of only prohibited clauses matches nothing, as in Lucene)
//   "a b c"       OP_PHRASE, window = number of terms (exact adjacency, in order)
//   "a b"~N       OP_NEAR, window = nterms + N.  Lucene's slop lets terms move, reorder included:
//                 every Lucene match lies in a span of at most nterms + N positions and every
//                 in-order span that short is a Lucene match, so OP_NEAR is exact for in-order
//                 occurrences and a little wider for reordered ones (Lucene charges reordering
//                 extra slop, OP_NEAR does not).  It is the conventional translation and the same
//                 choice as FTS5's NEAR in sqlite_peer.c.  OP_PHRASE with that window would be
//                 exact in order but drop every reordered match.  ~0 is an exact phrase.
//   mos*          Query(OP_WILDCARD, "mos"), unlimited expansion
//   th*e, t?e     UNSUPPORTED: Xapian 1.4's OP_WILDCARD takes a prefix only (patterns are 1.5)
//   *sband        UNSUPPORTED: same
//   /regex/       UNSUPPORTED: Xapian has no regexp query
//
// COUNT runs BoolWeight with checkatleast = doccount, which makes the matcher visit every match, so
// the lower and upper bounds meet; the peer checks that they do and answers ERROR otherwise.
// TOP_N runs BM25Weight(k1 1.2, k2 0, k3 1, b 0.75, min_normlen 0), HITS = mset.size().

#include <xapian.h>

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <sys/stat.h>
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "../ndjson.h"

namespace {

int64_t now_ns(clockid_t clock) {
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

// ---------------------------------------------------------------- query_string parsing

struct Unsupported : std::runtime_error {
    using std::runtime_error::runtime_error;
};
struct BadQuery : std::runtime_error {
    using std::runtime_error::runtime_error;
};

enum class Occur { SHOULD, MUST, MUST_NOT };
enum class Kind { TERM, PHRASE, PREFIX };

struct Clause {
    Occur occur;
    Kind kind;
    std::string text;  // TERM: the word; PHRASE: the text between the quotes; PREFIX: the prefix
    int slop;          // PHRASE: -1 for an exact phrase
};

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// Splits QUERY into clauses.  Throws Unsupported for forms Xapian 1.4 cannot express, BadQuery for
// malformed input.
std::vector<Clause> parse_query(const std::string &q) {
    std::vector<Clause> out;
    size_t i = 0, n = q.size();
    for (;;) {
        while (i < n && is_space(q[i])) i++;
        if (i >= n) break;
        Occur occur = Occur::SHOULD;
        if (q[i] == '+') { occur = Occur::MUST; i++; }
        else if (q[i] == '-') { occur = Occur::MUST_NOT; i++; }
        if (i >= n || is_space(q[i])) throw BadQuery("dangling operator");
        if (q[i] == '"') {
            size_t j = i + 1;
            std::string text;
            while (j < n && q[j] != '"') {
                if (q[j] == '\\' && j + 1 < n) j++;
                text += q[j++];
            }
            if (j >= n) throw BadQuery("unterminated phrase");
            j++;
            int slop = -1;
            if (j < n && q[j] == '~') {
                j++;
                size_t d = j;
                long v = 0;
                while (j < n && q[j] >= '0' && q[j] <= '9' && v < 100000) v = v * 10 + (q[j++] - '0');
                if (j == d) throw Unsupported("phrase ~ without an integer slop");
                slop = (int)v;
            }
            if (j < n && !is_space(q[j])) throw Unsupported("syntax after a phrase (boost?)");
            out.push_back({occur, Kind::PHRASE, text, slop});
            i = j;
            continue;
        }
        if (q[i] == '/') throw Unsupported("regexp: Xapian has no regexp query");
        // A bare word, with Lucene's backslash escapes.
        std::string word;
        bool star_at_end = false, wildcard = false, leading = false;
        size_t start = i;
        while (i < n && !is_space(q[i])) {
            char c = q[i];
            if (c == '\\' && i + 1 < n) {
                word += q[i + 1];
                i += 2;
                continue;
            }
            if (c == '*' || c == '?') {
                if (i == start) leading = true;
                if (c == '*' && (i + 1 == n || is_space(q[i + 1])) && !wildcard && i != start) {
                    star_at_end = true;
                } else {
                    wildcard = true;
                }
                i++;
                continue;
            }
            if (c == '\0' || strchr("()[]{}:^~!\"/", c))
                throw Unsupported(std::string("query_string syntax not in the benchmark forms: '") + c + "'");
            word += c;
            i++;
        }
        if (leading) throw Unsupported("leading wildcard: Xapian 1.4's OP_WILDCARD takes a prefix only");
        if (wildcard) throw Unsupported("wildcard inside a term: Xapian 1.4's OP_WILDCARD takes a prefix only");
        if (occur == Occur::SHOULD && (word == "AND" || word == "OR" || word == "NOT") && !star_at_end)
            throw Unsupported("boolean keyword operators are not in the benchmark forms");
        if (word.empty()) throw BadQuery("empty term");
        out.push_back({occur, star_at_end ? Kind::PREFIX : Kind::TERM, word, -1});
    }
    if (out.empty()) throw BadQuery("empty query");
    return out;
}

// ---------------------------------------------------------------- the engine

struct Peer {
    std::unique_ptr<Xapian::Database> db;
    Xapian::TermGenerator tg;  // same settings for documents and for query text
    Xapian::doccount ndocs = 0;

    Peer() {
        tg.set_stemmer(Xapian::Stem());  // the "none" stemmer
        tg.set_stemming_strategy(Xapian::TermGenerator::STEM_NONE);
    }

    std::string lowercase(const std::string &s) { return Xapian::Unicode::tolower(s); }

    // The terms of TEXT in position order, as the indexer would have produced them.
    std::vector<std::string> analyze(const std::string &text) {
        Xapian::Document doc;
        tg.set_document(doc);
        tg.set_termpos(0);
        tg.index_text(text);
        std::vector<std::pair<Xapian::termpos, std::string>> at;
        for (Xapian::TermIterator t = doc.termlist_begin(); t != doc.termlist_end(); ++t)
            for (Xapian::PositionIterator p = t.positionlist_begin(); p != t.positionlist_end(); ++p)
                at.emplace_back(*p, *t);
        std::sort(at.begin(), at.end());
        std::vector<std::string> terms;
        terms.reserve(at.size());
        for (auto &e : at) terms.push_back(std::move(e.second));
        return terms;
    }

    Xapian::Query terms_query(const std::vector<std::string> &terms, int slop) {
        if (terms.empty()) return Xapian::Query::MatchNothing;
        if (terms.size() == 1) return Xapian::Query(terms[0]);
        if (slop <= 0)
            return Xapian::Query(Xapian::Query::OP_PHRASE, terms.begin(), terms.end(), terms.size());
        return Xapian::Query(Xapian::Query::OP_NEAR, terms.begin(), terms.end(),
                             (Xapian::termcount)(terms.size() + (size_t)slop));
    }

    Xapian::Query clause_query(const Clause &c) {
        switch (c.kind) {
        case Kind::TERM: return terms_query(analyze(c.text), -1);
        case Kind::PHRASE: return terms_query(analyze(c.text), c.slop);
        case Kind::PREFIX:
            // Lucene lowercases expanded terms but does not analyze them; do the same.
            return Xapian::Query(Xapian::Query::OP_WILDCARD, lowercase(c.text));
        }
        return Xapian::Query::MatchNothing;
    }

    Xapian::Query build(const std::vector<Clause> &clauses) {
        std::vector<Xapian::Query> must, should, must_not;
        for (const Clause &c : clauses) {
            Xapian::Query q = clause_query(c);
            (c.occur == Occur::MUST ? must : c.occur == Occur::SHOULD ? should : must_not).push_back(q);
        }
        Xapian::Query pos;
        if (!must.empty()) {
            pos = Xapian::Query(Xapian::Query::OP_AND, must.begin(), must.end());
            if (!should.empty())
                pos = Xapian::Query(Xapian::Query::OP_AND_MAYBE, pos,
                                    Xapian::Query(Xapian::Query::OP_OR, should.begin(), should.end()));
        } else if (!should.empty()) {
            pos = Xapian::Query(Xapian::Query::OP_OR, should.begin(), should.end());
        } else {
            return Xapian::Query::MatchNothing;
        }
        if (!must_not.empty())
            pos = Xapian::Query(Xapian::Query::OP_AND_NOT, pos,
                                Xapian::Query(Xapian::Query::OP_OR, must_not.begin(), must_not.end()));
        return pos;
    }

    // Returns the hit count; throws on failure.
    Xapian::doccount run(const std::string &query, bool count, Xapian::doccount topn) {
        Xapian::Query q = build(parse_query(query));
        Xapian::Enquire enq(*db);
        enq.set_query(q);
        if (count) {
            enq.set_weighting_scheme(Xapian::BoolWeight());
            enq.set_docid_order(Xapian::Enquire::DONT_CARE);
            Xapian::MSet m = enq.get_mset(0, 0, ndocs);
            if (m.get_matches_lower_bound() != m.get_matches_upper_bound())
                throw std::runtime_error("count bounds disagree: " +
                                         std::to_string(m.get_matches_lower_bound()) + ".." +
                                         std::to_string(m.get_matches_upper_bound()));
            return m.get_matches_estimated();
        }
        enq.set_weighting_scheme(Xapian::BM25Weight(1.2, 0, 1, 0.75, 0));
        Xapian::MSet m = enq.get_mset(0, topn);
        return m.size();
    }
};

long long dir_bytes(const std::string &dir) {
    long long total = 0;
    DIR *d = opendir(dir.c_str());
    if (!d) return 0;
    while (struct dirent *e = readdir(d)) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        std::string path = dir + "/" + e->d_name;
        struct stat st;
        if (lstat(path.c_str(), &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) total += dir_bytes(path);
        else if (S_ISREG(st.st_mode)) total += (long long)st.st_size;
    }
    closedir(d);
    return total;
}

int remove_entry(const char *path, const struct stat *, int, struct FTW *) {
    if (remove(path) != 0) perror(path);
    return 0;
}

void remove_tree(const std::string &dir) {
    struct stat st;
    if (lstat(dir.c_str(), &st) == 0) nftw(dir.c_str(), remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

std::string one_line(std::string s) {
    for (char &c : s)
        if (c == '\n' || c == '\r' || c == '\t') c = ' ';
    return s;
}

}  // namespace

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s INDEX_DIR DOCS.ndjson\n", argv[0]);
        return 2;
    }
    std::ios::sync_with_stdio(false);
    const std::string index_dir = argv[1];
    // Built at INDEX_DIR/build, compacted into INDEX_DIR/db, the build then removed.
    const std::string build_dir = index_dir + "/build", db_dir = index_dir + "/db";
    if (mkdir(index_dir.c_str(), 0777) != 0 && errno != EEXIST) {
        perror(index_dir.c_str());
        return 1;
    }
    remove_tree(build_dir);
    remove_tree(db_dir);
    Peer peer;

    FILE *in = fopen(argv[2], "rb");
    if (!in) {
        perror(argv[2]);
        return 1;
    }
    int64_t t0 = now_ns(CLOCK_MONOTONIC);
    try {
        // No termlist table: a forward index Lucene does not keep either (no term vectors); the
        // match needs only postings, positions and document lengths.
        Xapian::WritableDatabase wdb(build_dir, Xapian::DB_CREATE_OR_OVERWRITE | Xapian::DB_NO_TERMLIST);
        char *buf = nullptr;
        size_t cap = 0;
        ssize_t len;
        char *body = nullptr;
        size_t body_cap = 0, body_len;
        long lineno = 0;
        while ((len = getline(&buf, &cap, in)) > 0) {
            lineno++;
            if (ndjson_blank(buf, (size_t)len)) continue;
            int found = ndjson_string_field(buf, (size_t)len, "body", &body, &body_cap, &body_len);
            if (found == -2) {
                fprintf(stderr, "xapian-peer: out of memory\n");
                return 1;
            }
            if (found < 0) {
                fprintf(stderr, "xapian-peer: %s:%ld: malformed document line\n", argv[2], lineno);
                return 1;
            }
            Xapian::Document doc;
            peer.tg.set_document(doc);
            peer.tg.set_termpos(0);
            if (found) peer.tg.index_text(Xapian::Utf8Iterator(body, body_len));
            wdb.add_document(doc);
        }
        free(body);
        free(buf);
        wdb.commit();
        wdb.close();
        // Xapian has no segments to merge; its counterpart of Lucene's forceMerge is compaction,
        // which rewrites the B-trees full and in order (about half the size of a freshly built
        // database, and faster to read).  Counted in index_seconds like Lucene's merge.
        Xapian::Database(build_dir).compact(db_dir);
        remove_tree(build_dir);
    } catch (const Xapian::Error &e) {
        fprintf(stderr, "xapian-peer: indexing: %s\n", e.get_description().c_str());
        return 1;
    }
    fclose(in);
    double secs = (double)(now_ns(CLOCK_MONOTONIC) - t0) / 1e9;

    try {
        peer.db.reset(new Xapian::Database(db_dir));
    } catch (const Xapian::Error &e) {
        fprintf(stderr, "xapian-peer: opening: %s\n", e.get_description().c_str());
        return 1;
    }
    peer.ndocs = peer.db->get_doccount();
    printf("READY\t{\"engine\":\"xapian\",\"version\":\"%s\",\"docs\":%u,\"index_seconds\":%.3f,"
           "\"index_bytes\":%lld}\n",
           Xapian::version_string(), (unsigned)peer.ndocs, secs, dir_bytes(db_dir));
    fflush(stdout);

    std::string line;
    while (std::getline(std::cin, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        size_t tab = line.find('\t');
        if (tab == std::string::npos) {
            printf("ERROR\texpected MODE<TAB>QUERY\n");
            fflush(stdout);
            continue;
        }
        std::string mode = line.substr(0, tab), query = line.substr(tab + 1);
        bool count = false;
        Xapian::doccount topn = 0;
        if (mode == "COUNT") {
            count = true;
        } else if (mode.compare(0, 4, "TOP_") == 0 && mode.size() > 4 &&
                   mode.find_first_not_of("0123456789", 4) == std::string::npos) {
            topn = (Xapian::doccount)strtoul(mode.c_str() + 4, nullptr, 10);
        } else {
            printf("ERROR\tunknown mode %s\n", one_line(mode).c_str());
            fflush(stdout);
            continue;
        }
        int64_t c0 = now_ns(CLOCK_THREAD_CPUTIME_ID), w0 = now_ns(CLOCK_MONOTONIC);
        try {
            Xapian::doccount hits = peer.run(query, count, topn);
            int64_t w1 = now_ns(CLOCK_MONOTONIC), c1 = now_ns(CLOCK_THREAD_CPUTIME_ID);
            printf("OK\t%u\t%lld\t%lld\n", (unsigned)hits, (long long)(c1 - c0), (long long)(w1 - w0));
        } catch (const Unsupported &e) {
            printf("UNSUPPORTED\t%s\n", one_line(e.what()).c_str());
        } catch (const BadQuery &e) {
            printf("ERROR\t%s\n", one_line(e.what()).c_str());
        } catch (const Xapian::Error &e) {
            printf("ERROR\t%s\n", one_line(e.get_description()).c_str());
        } catch (const std::exception &e) {
            printf("ERROR\t%s\n", one_line(e.what()).c_str());
        }
        fflush(stdout);
    }
    return 0;
}
