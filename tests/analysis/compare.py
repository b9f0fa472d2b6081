#!/usr/bin/python3
"""compare.py — trove's `_analyze` against Lucene 4.10's, token by token (issue 19's proof).

    tests/analysis/compare.py [--trove BIN] [--build DIR] [--case NAME]... [--verbose] [--list]
                              [--per-lang N] [--known FILE]

Builds the oracle (tests/analysis/LuceneOracle.java, javac into BUILD/analysis-oracle, Debian's
liblucene4.10-java and libicu4j-java jars), the corpus (tests/analysis/make_corpus.py into
BUILD/analysis-corpus), starts `BIN serve --port 0` on 127.0.0.1 in memory, and runs every case of
the table below (an `_analyze` spec over the sentences of one language) through both. For each
case it prints: compared, equal, and the first differing token on both sides.

Case statuses:
  ok / DIFF  compared; DIFF when some text's tokens differ (token, offsets, type, position,
             positionLength) — first difference shown
  missing    trove answers 400 to the case's first text (analyzer or component not built yet).
             Inline definitions are first sent as `_analyze` takes them, then, if trove refuses
             those, as index settings of a throw-away index (`POST /idx/_analyze` naming them)
  no-oracle  OpenSearch has it but Lucene 4.10 does not (later Lucene, or Debian's ICU4J 72
             cannot run Lucene 4.10's ICU tokenizer): nothing to compare against
  no-text    the corpus has no sentence for the case's language on this machine (or a
             dictionary the case needs is not installed)

The run fails (exit 1) when the agreement (equal / compared, summed over the compared cases not
listed as known differences) is below 99%, when a missing case is not listed in
known-differences.txt (`missing CASE  # why`), when a listed missing case is supported now
(remove its line), when the oracle cannot build a spec (a harness bug), or when trove answers a
5xx or dies. Cases listed as `differs CASE  # why` (Lucene 4.10 and OpenSearch 3.x's Lucene 10
differ, with the reason) or `bug CASE  # why` (trove is wrong; to fix) are compared and reported
but not gated; a `bug` case that has become equal fails the run until its line is removed. A case
listed as `masked:FIELD[,FIELD] CASE  # why` differs only in those token attributes (Lucene 10
changed them): it is compared, and gated, on every other attribute.
--case NAME (repeatable; a trailing * matches a prefix) runs only those cases and does not check
for stale lines. Exit 77 (CTest skip) when no JDK or no Lucene 4.10 jars are installed.
"""
import argparse
import hashlib
import http.client
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
JARS = ["lucene-core", "lucene-analyzers-common", "lucene-analyzers-kuromoji", "lucene-analyzers-icu",
        "lucene-analyzers-smartcn", "lucene-analyzers-stempel"]
GATE = 0.99
# files a case needs besides the corpus (Debian's dictionaries); without them the case is no-text
NEEDS = {"filter/hunspell/en_US": "/usr/share/hunspell/en_US.aff",
         "filter/hunspell/en_US/longest_only": "/usr/share/hunspell/en_US.aff"}

# ------------------------------------------------------------------------------------- the cases

LANGUAGE_ANALYZERS = [
    "arabic", "armenian", "basque", "bengali", "brazilian", "bulgarian", "catalan", "czech", "danish",
    "dutch", "english", "estonian", "finnish", "french", "galician", "german", "greek", "hindi",
    "hungarian", "indonesian", "irish", "italian", "latvian", "lithuanian", "norwegian", "persian",
    "portuguese", "romanian", "russian", "sorani", "spanish", "swedish", "turkish", "thai",
]
# OpenSearch's stemmer names -> corpus language
STEMMERS = {
    "arabic": "arabic", "armenian": "armenian", "basque": "basque", "bengali": "bengali",
    "brazilian": "brazilian", "bulgarian": "bulgarian", "catalan": "catalan", "czech": "czech",
    "danish": "danish", "dutch": "dutch", "dutch_kp": "dutch", "english": "english",
    "light_english": "english", "lovins": "english", "minimal_english": "english", "porter2": "english",
    "possessive_english": "english", "estonian": "estonian", "finnish": "finnish",
    "light_finnish": "finnish", "french": "french", "light_french": "french", "minimal_french": "french",
    "galician": "galician", "minimal_galician": "galician", "german": "german", "german2": "german",
    "light_german": "german", "minimal_german": "german", "greek": "greek", "hindi": "hindi",
    "hungarian": "hungarian", "light_hungarian": "hungarian", "indonesian": "indonesian",
    "irish": "irish", "italian": "italian", "light_italian": "italian", "latvian": "latvian",
    "lithuanian": "lithuanian", "norwegian": "norwegian", "light_norwegian": "norwegian",
    "minimal_norwegian": "norwegian", "light_nynorsk": "norwegian", "minimal_nynorsk": "norwegian",
    "portuguese": "portuguese", "light_portuguese": "portuguese", "minimal_portuguese": "portuguese",
    "portuguese_rslp": "portuguese", "romanian": "romanian", "russian": "russian",
    "light_russian": "russian", "sorani": "sorani", "spanish": "spanish", "light_spanish": "spanish",
    "swedish": "swedish", "light_swedish": "swedish", "turkish": "turkish",
}
SNOWBALL = {"Armenian": "armenian", "Basque": "basque", "Catalan": "catalan", "Danish": "danish",
            "Dutch": "dutch", "English": "english", "Finnish": "finnish", "French": "french",
            "German": "german", "German2": "german", "Hungarian": "hungarian", "Irish": "irish",
            "Italian": "italian", "Kp": "dutch", "Lovins": "english", "Norwegian": "norwegian",
            "Porter": "english", "Portuguese": "portuguese", "Romanian": "romanian",
            "Russian": "russian", "Spanish": "spanish", "Swedish": "swedish", "Turkish": "turkish"}


def html(line):
    w = line.split(" ")
    w[0] = "<b>" + w[0] + "</b>"
    return '<p class="x">' + " ".join(w) + " &amp; caf&eacute; &#x41;<br/></p>"


def _mix(line, extras):
    """Inserts three of `extras` (chosen by the line) between the line's words."""
    w = line.split(" ")
    h = sum(map(ord, line))
    for k in range(3):
        w.insert((h >> k) % (len(w) + 1), extras[(h + 7 * k) % len(extras)])
    return " ".join(w) + " ."


URLS = ["http://host.example.com:8080/p/a%20b?q=1&r=2#frag", "ftp://user:pw@ftp.debian.org/pub;type=i",
        "file:///usr/share/doc/x.html", "(see www.kernel.org.)", "mailto:first.last@sub.example.org",
        '"quoted name"@example.net', "192.168.1.254/index", "[2001:db8::1]:443/x", "example.com-like",
        "foo.bar-baz.co.uk/path", "HTTPS://EXAMPLE.ORG", "user+tag@mail.example.de,", "10.0.0.300",
        "a.b.c.d.e", "https://xn--bcher-kva.example/ü", "x@[127.0.0.1]"]
CLASSIC = ["U.S.A.", "AT&T", "O'Reilly's", "x-1.2", "www.abc.com.", "R2D2", "jane_doe@example.com",
           "I.B.M", "3.14159", "Excite@Home", "1,000,000", "5/7/2003", "AB-12-CD", "you're"]
HTML = ["<!-- a comment <b>x</b> -->", "<script>if (a < b) { x = '</p>'; }</script>",
        "<style>p { color: red }</style>", "&lt;tag&gt;", "&#233;t&#xE9;&#65;", "<![CDATA[ raw & <text> ]]>",
        '<a href="http://x.org/?a=1&amp;b=2" title="t">link</a>', "<img src=a.png alt='pic'/>",
        "<table><tr><td>c1</td><td>c2</td></tr></table>", "<!DOCTYPE html>", "<?xml version='1.0'?>",
        "&notanentity; &amp", "<br>", "<h1>Title</h1>", "<span>in</span>line", "a < b > c"]


def url2(line):
    return _mix(line, URLS)


def classic2(line):
    return _mix(line, CLASSIC)


def html2(line):
    return _mix(line, HTML)


def path(line):
    return "/" + "/".join(line.split()[:6])


def url(line):
    return line + " https://www.example.org/a/b?c=d&e=f mail user.name@example.co.uk www.debian.org"


def cases():
    """(name, spec, language, sentences, transform) in run order."""
    out = []

    def add(name, spec, lang, n=100, tf=None):
        out.append((name, spec, lang, n, tf))

    for a in LANGUAGE_ANALYZERS:
        add("analyzer/" + a, {"analyzer": a}, a, 300)
    for lang in ("chinese", "japanese", "korean"):
        add("analyzer/cjk/" + lang, {"analyzer": "cjk"}, lang, 300)
    add("analyzer/english/stem_exclusion", {"analyzer": {"type": "english", "stem_exclusion": ["files", "running"]}},
        "english")
    add("analyzer/french/stopwords", {"analyzer": {"type": "french", "stopwords": ["le", "la", "fichier"]}}, "french")
    for a in ("standard", "simple", "whitespace", "keyword", "stop", "pattern", "fingerprint"):
        for lang in ("english", "french", "russian", "greek", "japanese", "thai"):
            add("analyzer/%s/%s" % (a, lang), {"analyzer": a}, lang)
    add("analyzer/standard/stopwords", {"analyzer": {"type": "standard", "stopwords": "_english_"}}, "english")
    add("analyzer/standard/max_token_length", {"analyzer": {"type": "standard", "max_token_length": 5}}, "english")
    add("analyzer/pattern/custom", {"analyzer": {"type": "pattern", "pattern": "[\\s,.]+", "lowercase": False}}, "german")
    add("analyzer/kuromoji", {"analyzer": "kuromoji"}, "japanese", 300)
    add("analyzer/chinese", {"analyzer": "chinese"}, "english")
    add("analyzer/smartcn", {"analyzer": "smartcn"}, "chinese", 300)
    add("analyzer/polish", {"analyzer": "polish"}, "polish", 300)
    # the standard tokenizer on every script of the corpus
    for lang in sorted({l for l in STEMMERS.values()} | {"chinese", "japanese", "korean", "thai", "polish"}):
        add("tokenizer/standard/" + lang, {"tokenizer": "standard"}, lang)
    for t, langs in (("classic", ("english", "french")), ("letter", ("english", "russian")),
                     ("lowercase", ("english", "greek")), ("whitespace", ("english", "japanese")),
                     ("keyword", ("english",)), ("thai", ("thai", "english")),
                     ("uax_url_email", ("english",)), ("char_group", ("english",)),
                     ("simple_pattern", ("english",)), ("simple_pattern_split", ("english",))):
        for lang in langs:
            add("tokenizer/%s/%s" % (t, lang), {"tokenizer": t}, lang, tf=url if t == "uax_url_email" else None)
    add("tokenizer/uax_url_email/urls", {"tokenizer": "uax_url_email"}, "english", tf=url2)
    add("tokenizer/uax_url_email/max_token_length", {"tokenizer": {"type": "uax_url_email", "max_token_length": 12}},
        "english", tf=url2)
    add("tokenizer/classic/mixed", {"tokenizer": "classic"}, "english", tf=classic2)
    add("tokenizer/classic/max_token_length", {"tokenizer": {"type": "classic", "max_token_length": 6}}, "english",
        tf=classic2)
    add("tokenizer/classic/filter", {"tokenizer": "classic", "filter": ["classic", "lowercase"]}, "english",
        tf=classic2)
    add("tokenizer/char_group/custom", {"tokenizer": {"type": "char_group", "tokenize_on_chars": ["whitespace", "-", ":"]}}, "english")
    add("tokenizer/simple_pattern/custom", {"tokenizer": {"type": "simple_pattern", "pattern": "[a-z]+"}}, "english")
    add("tokenizer/simple_pattern_split/custom", {"tokenizer": {"type": "simple_pattern_split", "pattern": "[ ,.]+"}}, "english")
    add("tokenizer/ngram", {"tokenizer": "ngram"}, "english", 50)
    add("tokenizer/ngram/2_3_letter_digit", {"tokenizer": {"type": "ngram", "min_gram": 2, "max_gram": 3,
                                                            "token_chars": ["letter", "digit"]}}, "french")
    add("tokenizer/edge_ngram", {"tokenizer": "edge_ngram"}, "english", 50)
    add("tokenizer/edge_ngram/1_10_letter", {"tokenizer": {"type": "edge_ngram", "min_gram": 1, "max_gram": 10,
                                                           "token_chars": ["letter"]}}, "russian")
    add("tokenizer/pattern", {"tokenizer": "pattern"}, "english")
    add("tokenizer/pattern/split", {"tokenizer": {"type": "pattern", "pattern": "[,.;:]\\s*"}}, "english")
    add("tokenizer/pattern/group", {"tokenizer": {"type": "pattern", "pattern": "([a-z]+)e", "group": 1}}, "english")
    add("tokenizer/path_hierarchy", {"tokenizer": "path_hierarchy"}, "english", tf=path)
    add("tokenizer/path_hierarchy/reverse", {"tokenizer": {"type": "path_hierarchy", "reverse": True, "delimiter": "/",
                                                           "replacement": "|"}}, "english", tf=path)
    add("tokenizer/path_hierarchy/skip", {"tokenizer": {"type": "path_hierarchy", "skip": 1}}, "english", tf=path)
    # token filters over the standard tokenizer
    std = lambda *f: {"tokenizer": "standard", "filter": list(f)}
    add("filter/lowercase", std("lowercase"), "german")
    add("filter/lowercase/greek", std({"type": "lowercase", "language": "greek"}), "greek")
    add("filter/lowercase/turkish", std({"type": "lowercase", "language": "turkish"}), "turkish")
    add("filter/lowercase/irish", std({"type": "lowercase", "language": "irish"}), "irish")
    add("filter/uppercase", std("uppercase"), "french")
    add("filter/asciifolding", std("asciifolding"), "french")
    add("filter/asciifolding/preserve", std({"type": "asciifolding", "preserve_original": True}), "german")
    add("filter/trim", {"tokenizer": "keyword", "filter": ["trim"]}, "english")
    add("filter/length", std({"type": "length", "min": 3, "max": 6}), "english")
    add("filter/stop", std("lowercase", "stop"), "english")
    add("filter/stop/french", std("lowercase", {"type": "stop", "stopwords": "_french_"}), "french")
    add("filter/stop/ignore_case", std({"type": "stop", "stopwords": ["The", "a", "file"], "ignore_case": True}), "english")
    add("filter/porter_stem", std("lowercase", "porter_stem"), "english")
    add("filter/kstem", std("lowercase", "kstem"), "english")
    for lang, corpus in SNOWBALL.items():
        add("filter/snowball/" + lang, std("lowercase", {"type": "snowball", "language": lang}), corpus)
    for name, corpus in STEMMERS.items():
        add("filter/stemmer/" + name, std("lowercase", {"type": "stemmer", "language": name}), corpus)
    add("filter/elision/french", std({"type": "elision", "articles": ["l", "d", "qu", "j", "n", "s"]}), "french")
    add("filter/elision/italian", std({"type": "elision", "articles": ["l", "dell", "all", "un", "nell"],
                                       "articles_case": True}), "italian")
    for lang in ("chinese", "japanese", "korean"):
        add("filter/cjk_bigram/" + lang, std("cjk_width", "cjk_bigram"), lang)
    add("filter/cjk_bigram/unigrams", std({"type": "cjk_bigram", "output_unigrams": True}), "japanese")
    add("filter/cjk_bigram/ignored", std({"type": "cjk_bigram", "ignored_scripts": ["hiragana", "katakana"]}), "japanese")
    add("filter/cjk_width", std("cjk_width"), "japanese")
    add("filter/decimal_digit", std("decimal_digit"), "arabic")
    add("filter/pattern_replace", std({"type": "pattern_replace", "pattern": "[aeiou]", "replacement": "_"}), "english")
    add("filter/pattern_capture", {"tokenizer": "whitespace", "filter": [
        {"type": "pattern_capture", "patterns": ["(\\p{L}+)", "(\\d+)"]}]}, "english")
    add("filter/unique", std("lowercase", "unique"), "english")
    add("filter/unique/same_position", std("lowercase", {"type": "unique", "only_on_same_position": True}), "english")
    add("filter/truncate", std({"type": "truncate", "length": 4}), "finnish")
    add("filter/reverse", std("reverse"), "english")
    add("filter/keyword_marker", std("lowercase", {"type": "keyword_marker", "keywords": ["files", "running"]},
                                     "porter_stem"), "english")
    add("filter/keyword_marker/pattern", std("lowercase", {"type": "keyword_marker", "keywords_pattern": "^f.*"},
                                             "porter_stem"), "english")
    add("filter/stemmer_override", std("lowercase", {"type": "stemmer_override", "rules": [
        "running, runs => run", "files => document"]}, "porter_stem"), "english")
    add("filter/hunspell/en_US", std("lowercase", {"type": "hunspell", "locale": "en_US"}), "english")
    add("filter/hunspell/en_US/longest_only", std("lowercase", {"type": "hunspell", "locale": "en_US",
                                                                "longest_only": True, "dedup": False}), "english")
    add("filter/limit", std({"type": "limit", "max_token_count": 3}), "english")
    add("filter/min_hash", std("min_hash"), "english")
    add("filter/shingle", std("shingle"), "english")
    add("filter/shingle/3", std("lowercase", {"type": "shingle", "min_shingle_size": 2, "max_shingle_size": 3,
                                              "output_unigrams": False, "token_separator": "_"}), "english")
    add("filter/shingle/stop_filler", std("lowercase", "stop", {"type": "shingle", "filler_token": "#"}), "english")
    add("filter/ngram", std({"type": "ngram", "min_gram": 2, "max_gram": 3}), "english", 50)
    add("filter/edge_ngram", std({"type": "edge_ngram", "min_gram": 1, "max_gram": 5}), "english", 50)
    add("filter/word_delimiter", {"tokenizer": "whitespace", "filter": ["word_delimiter"]}, "english")
    add("filter/word_delimiter/catenate", {"tokenizer": "whitespace", "filter": [
        {"type": "word_delimiter", "catenate_all": True, "preserve_original": True}]}, "english")
    add("filter/word_delimiter/options", {"tokenizer": "whitespace", "filter": [
        {"type": "word_delimiter", "generate_word_parts": False, "catenate_words": True, "catenate_numbers": True,
         "split_on_case_change": False, "stem_english_possessive": False}]}, "english")
    add("filter/word_delimiter/protected", {"tokenizer": "whitespace", "filter": [
        {"type": "word_delimiter", "protected_words": ["don't", "e-mail", "GNU/Linux"], "protected_words_case": True,
         "type_table": ["' => ALPHA", "\\u002E => DIGIT", "% => DIGIT"], "split_on_numerics": False}]}, "english")
    add("filter/word_delimiter_graph", {"tokenizer": "whitespace", "filter": ["word_delimiter_graph"]}, "english")
    add("filter/shingle/unigrams_if_no", std("stop", {"type": "shingle", "min_shingle_size": 3, "max_shingle_size": 3,
                                                      "output_unigrams": False,
                                                      "output_unigrams_if_no_shingles": True}), "english")
    syn = ["file, document", "error, failure, fault", "directory => folder"]
    add("filter/synonym", std("lowercase", {"type": "synonym", "synonyms": syn}), "english")
    add("filter/synonym/no_expand", std("lowercase", {"type": "synonym", "synonyms": syn, "expand": False}), "english")
    add("filter/synonym_graph", std("lowercase", {"type": "synonym_graph", "synonyms": syn}), "english")
    for f, lang in (("apostrophe", "turkish"), ("classic", "english"), ("german_normalization", "german"),
                    ("hindi_normalization", "hindi"), ("indic_normalization", "bengali"),
                    ("arabic_normalization", "arabic"), ("persian_normalization", "persian"),
                    ("sorani_normalization", "sorani"), ("scandinavian_normalization", "swedish"),
                    ("scandinavian_folding", "norwegian"), ("serbian_normalization", "russian"),
                    ("bengali_normalization", "bengali"), ("keyword_repeat", "english")):
        add("filter/" + f, std("lowercase", f), lang)
    add("filter/fingerprint", std("fingerprint"), "english")
    # char filters
    add("char_filter/html_strip", {"tokenizer": "standard", "char_filter": ["html_strip"]}, "english", tf=html)
    add("char_filter/html_strip/escaped", {"tokenizer": "standard", "char_filter": [
        {"type": "html_strip", "escaped_tags": ["b"]}]}, "english", tf=html)
    add("char_filter/html_strip/constructs", {"tokenizer": "standard", "char_filter": ["html_strip"]}, "french",
        tf=html2)
    add("char_filter/html_strip/keyword", {"tokenizer": "keyword", "char_filter": ["html_strip"]}, "english", tf=html2)
    add("char_filter/mapping", {"tokenizer": "standard", "char_filter": [
        {"type": "mapping", "mappings": ["ä => ae", "ö => oe", "ü => ue", "ß => ss", "\\u0020 => _"]}]}, "german")
    add("char_filter/mapping/comments", {"tokenizer": "whitespace", "char_filter": [
        {"type": "mapping", "mappings": ["# a comment", "# => _hash_", "a => 4", "#e => 3"]}]}, "english")
    add("char_filter/pattern_replace", {"tokenizer": "standard", "char_filter": [
        {"type": "pattern_replace", "pattern": "(\\d+)", "replacement": "<$1>"}]}, "english")
    # Japanese (kuromoji)
    for mode in ("normal", "search", "extended"):
        add("kuromoji/tokenizer/" + mode, {"tokenizer": {"type": "kuromoji_tokenizer", "mode": mode}}, "japanese")
    add("kuromoji/tokenizer/keep_punctuation", {"tokenizer": {"type": "kuromoji_tokenizer",
                                                              "discard_punctuation": False}}, "japanese")
    add("kuromoji/tokenizer/user_dictionary", {"tokenizer": {"type": "kuromoji_tokenizer", "user_dictionary_rules": [
        "東京スカイツリー,東京 スカイツリー,トウキョウ スカイツリー,カスタム名詞", "設定ファイル,設定 ファイル,セッテイ ファイル,カスタム名詞"]}},
        "japanese")
    kt = "kuromoji_tokenizer"
    add("kuromoji/baseform", {"tokenizer": kt, "filter": ["kuromoji_baseform"]}, "japanese")
    add("kuromoji/part_of_speech", {"tokenizer": kt, "filter": ["kuromoji_part_of_speech"]}, "japanese")
    add("kuromoji/readingform", {"tokenizer": kt, "filter": ["kuromoji_readingform"]}, "japanese")
    add("kuromoji/readingform/romaji", {"tokenizer": kt, "filter": [{"type": "kuromoji_readingform",
                                                                     "use_romaji": True}]}, "japanese")
    add("kuromoji/stemmer", {"tokenizer": kt, "filter": ["kuromoji_stemmer"]}, "japanese")
    add("kuromoji/ja_stop", {"tokenizer": kt, "filter": ["ja_stop"]}, "japanese")
    add("kuromoji/number", {"tokenizer": kt, "filter": ["kuromoji_number"]}, "japanese")
    add("kuromoji/iteration_mark", {"tokenizer": kt, "char_filter": ["kuromoji_iteration_mark"]}, "japanese")
    add("smartcn/tokenizer", {"tokenizer": "smartcn_tokenizer"}, "chinese")
    # ICU on mixed text
    add("icu/tokenizer", {"tokenizer": "icu_tokenizer"}, "mixed", 200)
    add("icu/normalizer", {"tokenizer": "whitespace", "filter": ["icu_normalizer"]}, "mixed", 200)
    # OpenSearch reads `mode` only on the char filter (its token filter always composes)
    add("icu/normalizer/nfd", {"tokenizer": "whitespace", "char_filter": [
        {"type": "icu_normalizer", "name": "nfc", "mode": "decompose"}]}, "mixed", 200)
    add("icu/normalizer/char_filter", {"tokenizer": "whitespace", "char_filter": ["icu_normalizer"]}, "mixed", 200)
    add("icu/folding", {"tokenizer": "whitespace", "filter": ["icu_folding"]}, "mixed", 200)
    add("icu/collation", {"tokenizer": "whitespace", "filter": ["icu_collation"]}, "mixed", 200)
    add("icu/collation/de_primary", {"tokenizer": "whitespace", "filter": [
        {"type": "icu_collation", "language": "de", "strength": "primary"}]}, "mixed", 200)
    add("icu/collation/shifted_numeric", {"tokenizer": "whitespace", "filter": [
        {"type": "icu_collation", "alternate": "shifted", "numeric": "true"}]}, "mixed", 200)
    add("icu/transform/latin", {"tokenizer": "whitespace", "filter": [
        {"type": "icu_transform", "id": "Any-Latin; NFD; [:Nonspacing Mark:] Remove; NFC"}]}, "mixed", 200)
    return out


# ------------------------------------------------------------------------------------ the server

class Trove:
    def __init__(self, binary):
        self.proc = subprocess.Popen([binary, "serve", "--host", "127.0.0.1", "--port", "0"],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE)
        log = b""
        deadline = time.monotonic() + 20
        while b"listening on " not in log:
            left = deadline - time.monotonic()
            if left <= 0 or self.proc.poll() is not None:
                self.proc.kill()
                raise RuntimeError("trove serve did not start: %r" % log)
            r, _, _ = select.select([self.proc.stderr], [], [], left)
            if r:
                log += os.read(self.proc.stderr.fileno(), 4096)
        url = log.split(b"listening on ", 1)[1].split(b"\n", 1)[0].decode().strip()
        hostport = url.split("://", 1)[1].rstrip("/")
        self.host, self.port = hostport.rsplit(":", 1)
        self.conn = http.client.HTTPConnection(self.host, int(self.port), timeout=60)

    def request(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        for attempt in (0, 1):
            try:
                self.conn.request(method, path, body=data, headers={"Content-Type": "application/json"})
                resp = self.conn.getresponse()
                raw = resp.read()
                return resp.status, (json.loads(raw) if raw else None)
            except (http.client.HTTPException, ConnectionError):
                if attempt or self.proc.poll() is not None:
                    raise
                self.conn.close()
                self.conn = http.client.HTTPConnection(self.host, int(self.port), timeout=60)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            rc = self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            rc = self.proc.wait()
        err = self.proc.stderr.read().decode(errors="replace")
        self.proc.stderr.close()
        return rc, err


# ------------------------------------------------------------------------------------ the oracle

def java_classpath():
    d = Path(os.environ.get("JAVA_DIR", "/usr/share/java"))
    cp = []
    for m in JARS:
        for cand in [d / ("%s-4.10.4.jar" % m)] + sorted(d.glob("%s-4.10.*.jar" % m)):
            if cand.exists():
                cp.append(str(cand))
                break
        else:
            return None, "no %s 4.10 jar in %s (apt-get install liblucene4.10-java)" % (m, d)
    icu = d / "icu4j.jar"
    if not icu.exists():
        return None, "no %s (apt-get install libicu4j-java)" % icu
    cp.append(str(icu))
    return cp, None


def build_oracle(build):
    """javac LuceneOracle.java into BUILD/analysis-oracle when the source is newer. Returns argv."""
    javac, java = shutil.which("javac"), shutil.which("java")
    if not javac or not java:
        return None, "no JDK (apt-get install openjdk-17-jdk-headless)"
    cp, why = java_classpath()
    if cp is None:
        return None, why
    out = build / "analysis-oracle"
    src = HERE / "LuceneOracle.java"
    stamp = out / "LuceneOracle.class"
    if not stamp.exists() or stamp.stat().st_mtime < src.stat().st_mtime:
        out.mkdir(parents=True, exist_ok=True)
        r = subprocess.run([javac, "-encoding", "UTF-8", "-nowarn", "-Xlint:none", "-cp", ":".join(cp),
                            "-d", str(out), str(src)], capture_output=True, text=True)
        if r.returncode:
            sys.stderr.write(r.stdout + r.stderr)
            raise SystemExit("compare.py: javac LuceneOracle.java failed")
    return [java, "-Xss8m", "-Xmx1g", "-XX:+UseSerialGC", "-cp", ":".join([str(out)] + cp), "LuceneOracle"], None


def build_corpus(build, per_lang):
    out = build / "analysis-corpus"
    stamp = out / ".made"
    want = "%s %d" % (hashlib.sha1((HERE / "make_corpus.py").read_bytes()).hexdigest(), per_lang)
    if not stamp.exists() or stamp.read_text() != want:
        r = subprocess.run([sys.executable, str(HERE / "make_corpus.py"), str(out), "--per-lang", str(per_lang)],
                           capture_output=True, text=True)
        if r.returncode:
            sys.stderr.write(r.stderr)
            raise SystemExit("compare.py: make_corpus.py failed")
        stamp.write_text(want)
    corpus = {}
    for f in sorted(out.glob("*.txt")):
        corpus[f.stem] = f.read_text(encoding="utf-8").splitlines()
    mixed = []
    for lang in sorted(corpus):
        mixed.extend(corpus[lang][:12])
    corpus["mixed"] = sorted(mixed, key=lambda l: hashlib.sha1(l.encode()).hexdigest())
    return corpus


# ------------------------------------------------------------------------------------- comparing

KEYS = ("token", "start_offset", "end_offset", "type", "position", "positionLength")


def norm(tokens):
    return [{k: t[k] for k in KEYS if k in t and not (k == "positionLength" and t[k] == 1)} for t in tokens]


def has_inline(spec):
    if isinstance(spec.get("analyzer"), dict):
        return True
    return any(isinstance(x, dict) for k in ("tokenizer", "filter", "char_filter")
               for x in (spec.get(k) if isinstance(spec.get(k), list) else [spec.get(k)]))


def as_index(spec):
    """The spec as index analysis settings + an _analyze body naming analyzer "a"."""
    analysis = {"analyzer": {}, "tokenizer": {}, "filter": {}, "char_filter": {}}
    if "analyzer" in spec:
        analysis["analyzer"]["a"] = spec["analyzer"]
    else:
        a = {"type": "custom"}
        t = spec["tokenizer"]
        if isinstance(t, dict):
            analysis["tokenizer"]["t0"] = t
            t = "t0"
        a["tokenizer"] = t
        for key, short in (("filter", "f"), ("char_filter", "c")):
            names = []
            for i, f in enumerate(spec.get(key, [])):
                if isinstance(f, dict):
                    analysis[key]["%s%d" % (short, i)] = f
                    f = "%s%d" % (short, i)
                names.append(f)
            if names:
                a[key] = names
        analysis["analyzer"]["a"] = a
    return {k: v for k, v in analysis.items() if v}


def reason_of(body):
    try:
        e = body["error"]
        return "%s: %s" % (e.get("type"), e.get("reason"))
    except (TypeError, KeyError, AttributeError):
        return json.dumps(body)[:200]


def load_known(path):
    known = {}
    if not path.exists():
        return known
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        head, _, why = s.partition("#")
        parts = head.split()
        kind, _, fields = parts[0].partition(":") if parts else ("", "", "")
        masks = [f for f in fields.split(",") if f]
        if len(parts) != 2 or kind not in ("missing", "differs", "bug", "masked") or not why.strip() \
                or (kind == "masked") != bool(masks) or any(f not in KEYS for f in masks):
            raise SystemExit("%s:%d: expected 'missing|differs|bug|masked:FIELD[,FIELD] CASE  # reason': %s"
                             % (path, n, line))
        known[parts[1]] = (kind, why.strip(), masks)
    return known


def masked(tokens, fields):
    """tokens without the attributes a 'masked:' line names."""
    return [{k: v for k, v in t.items() if k not in fields} for t in tokens] if fields else tokens


def selected(name, patterns):
    if not patterns:
        return True
    return any(name == p or (p.endswith("*") and name.startswith(p[:-1])) for p in patterns)


def show(t):
    if t is None:
        return "(none)"
    s = "%r [%s-%s] %s @%s" % (t.get("token"), t.get("start_offset"), t.get("end_offset"), t.get("type"),
                                t.get("position"))
    if "positionLength" in t:
        s += " len%s" % t["positionLength"]
    return s


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--trove", default=os.environ.get("TROVE_BIN", str(ROOT / "build" / "trove")))
    ap.add_argument("--build", help="where the oracle and the corpus are built (default: the binary's folder)")
    ap.add_argument("--case", action="append", default=[], help="run only this case (NAME or PREFIX*)")
    ap.add_argument("--verbose", "-v", action="store_true", help="print every differing text")
    ap.add_argument("--list", action="store_true", help="list the cases and exit")
    ap.add_argument("--per-lang", type=int, default=300, help="sentences per language in the corpus")
    ap.add_argument("--known", default=str(HERE / "known-differences.txt"))
    ap.add_argument("--print-missing", action="store_true",
                    help="print a 'missing' line for each unlisted missing case (to paste into the file)")
    args = ap.parse_args()

    table = [c for c in cases() if selected(c[0], args.case)]
    if args.list:
        for name, spec, lang, n, _tf in table:
            print("%-44s %-10s %4d  %s" % (name, lang, n, json.dumps(spec, ensure_ascii=False)))
        return 0
    if not table:
        print("compare.py: no case matches %s" % args.case, file=sys.stderr)
        return 2
    known = load_known(Path(args.known))
    names = {c[0] for c in cases()}
    bad = ["known-differences.txt names no case %s" % k for k in known if k not in names]

    binary = os.path.abspath(args.trove)
    build = Path(args.build) if args.build else Path(binary).parent
    oracle, why = build_oracle(build)
    if oracle is None:
        print("compare.py: SKIP: %s" % why)
        return 77
    t0 = time.monotonic()
    corpus = build_corpus(build, args.per_lang)

    # every (case, text) through the oracle in one JVM
    jobs = []
    for ci, (name, spec, lang, n, tf) in enumerate(table):
        texts = corpus.get(lang, [])[:n]
        if name in NEEDS and not os.path.exists(NEEDS[name]):
            texts = []
        if tf:
            texts = [tf(t) for t in texts]
        jobs.append(texts)
    with tempfile.TemporaryFile("w+", encoding="utf-8") as inp:
        for ci, texts in enumerate(jobs):
            for ti, text in enumerate(texts):
                inp.write(json.dumps({"id": [ci, ti], "spec": table[ci][1], "text": text}, ensure_ascii=False) + "\n")
        inp.flush()
        inp.seek(0)
        r = subprocess.run(oracle, stdin=inp, capture_output=True)
    if r.returncode:
        sys.stderr.write(r.stderr.decode(errors="replace"))
        raise SystemExit("compare.py: the oracle failed")
    lucene = {}
    # split on "\n" only: splitlines() also cuts at U+2028, U+0085, ... (collation keys hold them)
    for line in r.stdout.decode("utf-8").split("\n"):
        if not line:
            continue
        o = json.loads(line)
        lucene[tuple(o["id"])] = o
    t_oracle = time.monotonic() - t0

    trove = Trove(binary)
    results = []
    try:
        nidx = 0
        for ci, (name, spec, lang, n, tf) in enumerate(table):
            texts = jobs[ci]
            mask = known.get(name, (None, "", []))[2]
            res = {"name": name, "lang": lang, "compared": 0, "equal": 0, "status": "ok", "first": None,
                   "diffs": [], "note": ""}
            results.append(res)
            if not texts:
                res["status"] = "no-text"
                continue
            first = lucene[(ci, 0)]
            if "no_oracle" in first:
                res["status"] = "no-oracle"
                res["note"] = first["no_oracle"]
                continue
            if "error" in first:
                res["status"] = "ORACLE-ERROR"
                res["note"] = first["error"]
                continue
            path, body_of = "/_analyze", (lambda text: dict(spec, text=text))
            for ti, text in enumerate(texts):
                st, body = trove.request("POST", path, body_of(text))
                if ti == 0 and st == 400 and has_inline(spec):
                    nidx += 1
                    idx = "oracle-%d" % nidx
                    cst, cbody = trove.request("PUT", "/" + idx, {"settings": {"analysis": as_index(spec)}})
                    if cst == 200:
                        path, body_of = "/%s/_analyze" % idx, (lambda text: {"analyzer": "a", "text": text})
                        st, body = trove.request("POST", path, body_of(text))
                    else:
                        st, body = cst, cbody
                if st >= 500:
                    raise RuntimeError("%s: trove answered %d: %s" % (name, st, reason_of(body)))
                if st != 200:
                    if ti == 0:
                        res["status"] = "missing"
                        res["note"] = reason_of(body)
                        break
                    got = None
                else:
                    got = masked(norm(body.get("tokens", [])), mask)
                want = lucene[(ci, ti)]
                if "tokens" not in want:
                    res["status"] = "ORACLE-ERROR"
                    res["note"] = want.get("error") or want.get("no_oracle")
                    break
                want = masked(norm(want["tokens"]), mask)
                res["compared"] += 1
                if got == want:
                    res["equal"] += 1
                    continue
                if got is None:
                    d = (text, -1, "HTTP %d %s" % (st, reason_of(body)), None)
                else:
                    k = 0
                    while k < min(len(got), len(want)) and got[k] == want[k]:
                        k += 1
                    d = (text, k, got[k] if k < len(got) else None, want[k] if k < len(want) else None)
                res["diffs"].append(d)
                if res["first"] is None:
                    res["first"] = d
            if res["status"] == "ok" and res["equal"] < res["compared"]:
                res["status"] = "DIFF"
    finally:
        rc, log = trove.stop()
    if rc != 0:
        bad.append("trove exited %s: %s" % (rc, log[-2000:]))
    if "ERROR: AddressSanitizer" in log or "runtime error:" in log:
        bad.append("sanitizer report in trove's log:\n" + log[-4000:])

    # ---- report
    tot_c = tot_e = gate_c = gate_e = 0
    unlisted = []
    print("%-44s %-10s %-10s %8s %8s %7s" % ("case", "language", "status", "compared", "equal", "agree"))
    for res in results:
        name = res["name"]
        kind = known.get(name, (None, "", []))[0]
        agree = "%.1f%%" % (100.0 * res["equal"] / res["compared"]) if res["compared"] else "-"
        label = res["status"] + (" (%s)" % kind if kind and res["status"] in ("missing", "DIFF") else "")
        print("%-44s %-10s %-10s %8d %8d %7s" % (name, res["lang"], label, res["compared"], res["equal"], agree))
        if res["status"] in ("missing", "no-oracle", "ORACLE-ERROR") and (args.verbose or res["status"] != "missing"):
            print("    %s" % res["note"])
        if res["first"] and (args.verbose or kind not in ("differs", "bug")):
            for text, k, got, want in (res["diffs"] if args.verbose else [res["first"]]):
                print("    text:   %s" % text[:200])
                if k < 0:
                    print("    trove:  %s" % got)
                else:
                    print("    token #%d  trove:  %s" % (k, show(got)))
                    print("              lucene: %s" % show(want))
        if res["status"] in ("ok", "DIFF"):
            tot_c += res["compared"]
            tot_e += res["equal"]
            if kind not in ("differs", "bug"):
                gate_c += res["compared"]
                gate_e += res["equal"]
        if res["status"] == "ORACLE-ERROR":
            bad.append("%s: the oracle cannot build it: %s" % (name, res["note"]))
        if res["status"] == "missing" and kind != "missing":
            bad.append("%s: trove does not support it (%s) and known-differences.txt does not list it"
                       % (name, res["note"]))
        if res["status"] != "missing" and kind == "missing" and res["status"] in ("ok", "DIFF") and not args.case:
            bad.append("%s: supported now: remove its 'missing' line from known-differences.txt" % name)
        if kind == "differs" and res["status"] == "ok" and res["compared"]:
            print("    note: listed as a known difference but equal on this corpus")
        if kind == "bug" and res["status"] == "ok" and res["compared"] and not args.case:
            bad.append("%s: equal now: remove its 'bug' line from known-differences.txt" % name)
        if res["status"] == "missing" and kind != "missing":
            unlisted.append("missing %s  # %s" % (name, res["note"]))

    counts = {}
    for res in results:
        counts[res["status"]] = counts.get(res["status"], 0) + 1
    print()
    print("cases: %s" % ", ".join("%d %s" % (v, k) for k, v in sorted(counts.items())))
    if tot_c:
        print("agreement over every compared case: %d/%d = %.2f%%" % (tot_e, tot_c, 100.0 * tot_e / tot_c))
    if gate_c:
        agree = gate_e / gate_c
        print("agreement over the compared cases not listed as known differences: %d/%d = %.2f%% (gate %.0f%%)"
              % (gate_e, gate_c, 100.0 * agree, 100 * GATE))
        if agree < GATE:
            bad.append("agreement %.2f%% is below %.0f%%" % (100.0 * agree, 100 * GATE))
    print("time: oracle %.1fs, total %.1fs" % (t_oracle, time.monotonic() - t0))
    if args.print_missing:
        print("\n".join(unlisted))
    for b in bad:
        print("FAIL: " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
