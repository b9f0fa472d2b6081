#!/usr/bin/python3
"""The queries of bench/fulltext: luceneutil's 20 classes, with bands from the corpus's statistics.

    make_queries.py --docs DOCS.ndjson --out QUERIES.tsv [--per-class 20] [--seed 42]
                    [--phrase-sample 50000] [--report REPORT.tsv]

Writes `CLASS<TAB>QUERY` lines (README.md, "Query file"), the classes in the order below, up to
--per-class queries each. --report writes `CLASS<TAB>QUERY<TAB>STATS` with the statistics each
query was chosen by.

Statistics, in one streaming pass over DOCS.ndjson:
  - the document frequency (df) of every term, with a tokenizer that approximates Lucene's
    StandardTokenizer + LowerCaseFilter: runs of Unicode word characters (letters, digits, "_"),
    joined across one "'", "’", "." or ":" between two letters ("don't", "u.s.a") and across one
    ",", ";", ".", "'" between two digits ("1,000", "3.14"), lowercased;
  - phrase (adjacent term pair) dfs on a reservoir sample of --phrase-sample documents (seeded),
    scaled to the whole corpus; exact when the corpus has no more documents than that.
Query terms are only plain terms, [a-z]+ or [0-9]+, which every engine's tokenizer agrees on.

Bands, as fractions of the corpus's document count D, read off the metadata of luceneutil's
queries on its 10M-document Wikipedia index (../shared/bench/queries/luceneutil-queries.txt beside the project;
its own range in brackets):

| class                     | chosen by                                   | band                          |
|---------------------------|---------------------------------------------|-------------------------------|
| high_term                 | df of the term                              | >= 12%     [12.3% .. 82%]     |
| med_term                  | df of the term                              | 6% .. 8.5% [6.1% .. 8.2%]     |
| low_term                  | df of the term                              | 0.75% .. 0.85% [0.79 .. 0.82%]|
| and_/or_high_*, 1st term  | df                                          | >= 8%      [8.3% .. 82%]      |
| and_/or_high_high, 2nd    | df                                          | >= 8%      [8.3% .. 41%]      |
| and_/or_high_med, 2nd     | df                                          | 0.8% .. 6.5% [0.83 .. 6.5%]   |
| and_/or_high_low, 2nd     | df                                          | 0.01% .. 0.07% [0.01 .. 0.07%]|
| high_phrase               | df of the phrase                            | >= 5%      [5.0% .. 50%]      |
| med_phrase                | df of the phrase                            | 2.4% .. 4.9% [2.45 .. 4.86%]  |
| low_phrase                | df of the phrase                            | 0.7% .. 0.75% [0.70 .. 0.74%] |
| high_sloppy_phrase  "~4"  | df of the exact phrase                      | 5% .. 17%  [5.3% .. 16.9%]    |
| med_sloppy_phrase   "~4"  | df of the exact phrase                      | as med_phrase                 |
| low_sloppy_phrase   "~4"  | df of the exact phrase                      | as low_phrase                 |
| prefix3      mos*         | the first 3 characters of a med_term term   | med_term's (4+ characters)    |
| wildcard     th*e         | 2 first + * + last character of a high term | high_term's (3+ characters)   |
| wildcard_scan h*band      | first + * + last 4 letters of a low term    | low_term's (6+ letters)       |
| wildcard_lead *sband      | * + last 5 letters of a low term            | low_term's (6+ letters)       |
| regex        /[0-9]{4}/   | luceneutil's 13 shapes that match a term, then shapes made from med and
|                           | low terms: /P[a-z]*SUF/, /.*SUFFIX/, /pre?fix/, /[0-9]{N}/, /[a-z]{N,}/ |

A df bound is a count of max(1, round(fraction * D)) documents. When a band holds fewer than
--per-class candidates it is widened, both ends by a factor 1.25 at a time, at most 6 times (a
factor of 3.8); the band used is said on stderr. A class still without candidates is skipped, and
said so on stderr. Candidates are sorted (df descending, then text) and drawn with a
random.Random seeded by "SEED:CLASS", so each class's choice is deterministic and independent of
the others. Pairs have two different terms, phrases two terms; prefixes, wildcards and regexes
are distinct, and each matches at least one term of the corpus (the report gives how many terms,
and the sum of their dfs, an upper bound of the query's hits).

Standard library only; Debian's /usr/bin/python3.
"""

import argparse
import collections
import json
import random
import re
import sys
import time

CLASSES = [
    "high_term", "med_term", "low_term",
    "and_high_high", "and_high_med", "and_high_low",
    "or_high_high", "or_high_med", "or_high_low",
    "high_phrase", "med_phrase", "low_phrase",
    "high_sloppy_phrase", "med_sloppy_phrase", "low_sloppy_phrase",
    "prefix3", "wildcard", "wildcard_scan", "wildcard_lead", "regex",
]

BANDS = {
    "term_high": (0.12, 1.0),
    "term_med": (0.06, 0.085),
    "term_low": (0.0075, 0.0085),
    "pair_first": (0.08, 1.0),
    "pair_high": (0.08, 1.0),
    "pair_med": (0.008, 0.065),
    "pair_low": (0.0001, 0.0007),
    "phrase_high": (0.05, 1.0),
    "phrase_med": (0.024, 0.049),
    "phrase_low": (0.007, 0.0075),
    "sloppy_high": (0.05, 0.17),
}

WIDEN = 1.25
WIDEN_STEPS = 6

TOKEN = re.compile(
    r"\w+(?:(?:(?<=[^\W\d_])[:·'.’](?=[^\W\d_])|(?<=\d)[,;.'’](?=\d))\w+)*")
PLAIN = re.compile(r"[a-z]+|[0-9]+")
ALPHA = re.compile(r"[a-z]+")

# luceneutil's regex shapes (searchbench's selection), used when they match a term of the corpus
LUCENEUTIL_REGEX = [
    "[0-9]{4}", "(19|20)[0-9]{2}", "[0-9]{4}s", "[0-9]{7}", "[0-9]{1,3}", "(www|http|https)",
    "(mon|tues|wednes|thurs|fri|satur|sun)day", "colou?r", "(re|un)[a-z]*ing",
    "[jkqxz][a-z]*ess", "[a-f0-9]{8,}", ".*(tion|sion)", ".*0th",
]


def log(msg):
    print("make_queries.py: " + msg, file=sys.stderr)


def tokens(text):
    return TOKEN.findall(text.lower())


class Stats:
    def __init__(self, path, sample_size, seed):
        self.df = collections.Counter()
        self.docs = 0
        rng = random.Random("%s:sample" % seed)
        sample = []
        t0 = time.monotonic()
        with open(path, encoding="utf-8") as f:
            for line in f:
                if not line.strip():
                    continue
                body = json.loads(line).get("body")
                if not isinstance(body, str):
                    continue
                body = body.lower()
                self.docs += 1
                self.df.update(set(TOKEN.findall(body)))
                if len(sample) < sample_size:  # reservoir sampling (Algorithm R)
                    sample.append(body)
                else:
                    j = rng.randrange(self.docs)
                    if j < sample_size:
                        sample[j] = body
        log("%d documents, %d distinct terms in %.1f s"
            % (self.docs, len(self.df), time.monotonic() - t0))
        t1 = time.monotonic()
        self.sampled = len(sample)
        self.exact_phrases = self.sampled == self.docs
        # pairs of plain terms frequent enough to be in the lowest phrase band, widened
        floor = max(1, int(self.docs * BANDS["phrase_low"][0] / WIDEN ** WIDEN_STEPS))
        keep = {t for t, c in self.df.items() if c >= floor and PLAIN.fullmatch(t)}
        pdf = collections.Counter()
        for body in sample:
            toks = TOKEN.findall(body)
            pairs = set()
            for a, b in zip(toks, toks[1:]):
                if a in keep and b in keep:
                    pairs.add((a, b))
            pdf.update(pairs)
        scale = self.docs / self.sampled if self.sampled else 0.0
        self.phrase_df = {p: c * scale for p, c in pdf.items()}
        log("phrase statistics: %s, %d pairs in %.1f s"
            % ("exact, all %d documents" % self.docs if self.exact_phrases else
               "estimated on a seeded sample of %d of %d documents" % (self.sampled, self.docs),
               len(self.phrase_df), time.monotonic() - t1))
        self.plain = sorted((t for t in self.df if PLAIN.fullmatch(t)),
                            key=lambda t: (-self.df[t], t))

    def count_bounds(self, lo, hi):
        lo_c = max(1, round(lo * self.docs))
        hi_c = max(lo_c, round(hi * self.docs))
        return lo_c, hi_c

    def banded(self, band_name, items, freq, need, label):
        """Items whose freq is in the band (widened if fewer than need), and the band used."""
        lo, hi = BANDS[band_name]
        for step in range(WIDEN_STEPS + 1):
            lo_c, hi_c = self.count_bounds(lo, min(hi, 1.0))
            got = [x for x in items if lo_c <= freq(x) <= hi_c]
            if len(got) >= need or step == WIDEN_STEPS:
                break
            lo, hi = lo / WIDEN, hi * WIDEN
        used = "%s %.4g%%..%.4g%% (df %d..%d)" % (band_name, 100 * lo, 100 * min(hi, 1.0),
                                                   lo_c, hi_c)
        if step:
            used += ", widened %d times" % step
        return got, used


def choose(seed, cls, candidates, k):
    rng = random.Random("%s:%s" % (seed, cls))
    if len(candidates) <= k:
        chosen = list(candidates)
        rng.shuffle(chosen)
        return chosen
    return rng.sample(candidates, k)


def matching_terms(stats, rx):
    pat = re.compile(rx)
    n = s = 0
    for t, c in stats.df.items():
        if pat.fullmatch(t):
            n += 1
            s += c
    return n, s


def wildcard_regex(pattern):
    return "".join(".*" if ch == "*" else "." if ch == "?" else re.escape(ch) for ch in pattern)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--docs", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--per-class", type=int, default=20)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--phrase-sample", type=int, default=50000,
                    help="documents sampled for phrase statistics (default 50000)")
    ap.add_argument("--report", help="also write CLASS<TAB>QUERY<TAB>STATS lines here")
    args = ap.parse_args()
    k = args.per_class
    st = Stats(args.docs, max(1, args.phrase_sample), args.seed)
    if st.docs == 0:
        log("no documents in %s" % args.docs)
        return 1
    df = st.df
    out = []  # (class, query, stats text)

    def note(cls, cands, used, chosen):
        log("%-18s %4d candidates in %s; %d chosen" % (cls, len(cands), used, len(chosen)))
        if not chosen:
            log("%-18s SKIPPED: no candidates" % cls)

    # terms
    for cls, band in (("high_term", "term_high"), ("med_term", "term_med"),
                      ("low_term", "term_low")):
        cands, used = st.banded(band, st.plain, df.__getitem__, k, cls)
        chosen = choose(args.seed, cls, cands, k)
        note(cls, cands, used, chosen)
        out += [(cls, t, "df=%d" % df[t]) for t in chosen]

    # pairs
    first, first_used = st.banded("pair_first", st.plain, df.__getitem__, k, "first")
    log("%-18s %4d candidates in %s" % ("(pairs' 1st term)", len(first), first_used))
    for op in ("and", "or"):
        for level in ("high", "med", "low"):
            cls = "%s_high_%s" % (op, level)
            second, used = st.banded("pair_" + level, st.plain, df.__getitem__, k, cls)
            rng = random.Random("%s:%s" % (args.seed, cls))
            chosen, seen = [], set()
            if first and second:
                for _ in range(50 * k):
                    if len(chosen) >= k:
                        break
                    a, b = rng.choice(first), rng.choice(second)
                    if a == b or frozenset((a, b)) in seen:
                        continue
                    seen.add(frozenset((a, b)))
                    chosen.append((a, b))
            note(cls, second, "2nd term " + used, chosen)
            for a, b in chosen:
                q = "+%s +%s" % (a, b) if op == "and" else "%s %s" % (a, b)
                out.append((cls, q, "df=%d df=%d" % (df[a], df[b])))

    # phrases
    pairs = sorted(st.phrase_df, key=lambda p: (-st.phrase_df[p], p))
    est = "" if st.exact_phrases else "~"
    for cls, band, slop in (("high_phrase", "phrase_high", ""), ("med_phrase", "phrase_med", ""),
                            ("low_phrase", "phrase_low", ""),
                            ("high_sloppy_phrase", "sloppy_high", "~4"),
                            ("med_sloppy_phrase", "phrase_med", "~4"),
                            ("low_sloppy_phrase", "phrase_low", "~4")):
        cands, used = st.banded(band, pairs, st.phrase_df.__getitem__, k, cls)
        chosen = choose(args.seed, cls, cands, k)
        note(cls, cands, used, chosen)
        for a, b in chosen:
            out.append((cls, '"%s %s"%s' % (a, b, slop),
                        "phrase_df=%s%d df=%d df=%d" % (est, round(st.phrase_df[(a, b)]),
                                                        df[a], df[b])))

    # multi-term queries made from the terms of a band
    med, _ = st.banded("term_med", st.plain, df.__getitem__, k, "prefix3")
    high, _ = st.banded("term_high", st.plain, df.__getitem__, k, "wildcard")
    low, _ = st.banded("term_low", st.plain, df.__getitem__, k, "wildcard_scan")
    shapes = {
        "prefix3": sorted({t[:3] + "*" for t in med if len(t) >= 4}),
        "wildcard": sorted({t[:2] + "*" + t[-1] for t in high if len(t) >= 3}),
        "wildcard_scan": sorted({t[0] + "*" + t[-4:] for t in low
                                 if len(t) >= 6 and ALPHA.fullmatch(t)}),
        "wildcard_lead": sorted({"*" + t[-5:] for t in low if len(t) >= 6 and ALPHA.fullmatch(t)}),
    }
    for cls in ("prefix3", "wildcard", "wildcard_scan", "wildcard_lead"):
        cands = shapes[cls]
        chosen = choose(args.seed, cls, cands, k)
        note(cls, cands, "shapes from the %s band" % {"prefix3": "med_term",
                                                       "wildcard": "high_term"}.get(cls, "low_term"),
             chosen)
        for q in chosen:
            n, s = matching_terms(st, wildcard_regex(q))
            out.append((cls, q, "terms=%d sum_df=%d" % (n, s)))

    # regexes: luceneutil's that match, then shapes made from med and low terms
    rng = random.Random("%s:regex" % args.seed)
    chosen = []
    for rx in LUCENEUTIL_REGEX:
        if len(chosen) >= k:
            break
        n, s = matching_terms(st, rx)
        if n:
            chosen.append((rx, n, s))
        else:
            log("regex /%s/ matches no term of this corpus, left out" % rx)
    made = set()
    words = [t for t in med + low if ALPHA.fullmatch(t) and len(t) >= 6]
    for t in words:
        made.add("%s[a-z]*%s" % (t[:2], t[-3:]))              # (re|un)[a-z]*ing
        made.add(".*" + t[-4:])                                # .*(tion|sion)
        i = len(t) // 2
        made.add(t[:i] + t[i] + "?" + t[i + 1:])               # colou?r
    longest = max((len(t) for t in st.plain if ALPHA.fullmatch(t)), default=0)
    for n_ in range(10, min(longest, 20) + 1):
        made.add("[a-z]{%d,}" % n_)
    for n_ in range(2, 9):
        made.add("[0-9]{%d}" % n_)
    made -= {rx for rx, _, _ in chosen}
    made = sorted(made)
    rng.shuffle(made)
    for rx in made:
        if len(chosen) >= k:
            break
        n, s = matching_terms(st, rx)
        if n:
            chosen.append((rx, n, s))
    log("%-18s %d luceneutil shapes match, %d made from med/low terms; %d chosen"
        % ("regex", sum(1 for rx, _, _ in chosen if rx in LUCENEUTIL_REGEX), len(made),
           len(chosen)))
    out += [("regex", "/%s/" % rx, "terms=%d sum_df=%d" % (n, s)) for rx, n, s in chosen]

    with open(args.out, "w", encoding="utf-8") as f:
        for cls, q, _ in out:
            f.write("%s\t%s\n" % (cls, q))
    if args.report:
        with open(args.report, "w", encoding="utf-8") as f:
            for cls, q, s in out:
                f.write("%s\t%s\t%s\n" % (cls, q, s))
    present = {c for c, _, _ in out}
    skipped = [c for c in CLASSES if c not in present]
    log("%d queries in %d classes -> %s%s" % (len(out), len(present), args.out,
                                             "; skipped: " + ", ".join(skipped) if skipped else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
