#!/usr/bin/python3
"""The *real* corpus of bench/fulltext: English text from Debian packages, in ~1 KB chunks.

    make_corpus.py --out DOCS.ndjson [--max-docs N] [--chunk 1000]
    make_corpus.py --packages        # prints the Debian packages it reads, one line

Sources, in this order (every file list sorted, so the output is the same on every machine
that has the same package versions):

| source    | package        | what                                                         |
|-----------|----------------|--------------------------------------------------------------|
| gcide     | dict-gcide     | /usr/share/dictd/gcide.dict.dz (Webster 1913 + additions)     |
| wordnet   | dict-wn        | /usr/share/dictd/wn.dict.dz (WordNet glosses)                 |
| foldoc    | dict-foldoc    | /usr/share/dictd/foldoc.dict.dz                               |
| jargon    | dict-jargon    | /usr/share/dictd/jargon.dict.dz                               |
| devil     | dict-devil     | /usr/share/dictd/devil.dict.dz (Bierce's Devil's Dictionary)  |
| linux-doc | linux-doc-6.1  | Documentation/**/*.rst.gz, *.txt.gz, ABI/* (no translations/) |
| perl-doc  | perl-doc       | /usr/share/perl/*/pod/*.pod (POD, verbatim blocks dropped)    |
| fortunes  | fortunes       | /usr/share/games/fortunes/* (fortunes-min comes with it)      |

All of them are in Debian main. dictd entries are read in file order through the .index (the
headers "00-database-*", "00-gcide-*" ... skipped) and their markup is stripped ({links},
gcide's \\pronunciation\\ and the respelling in parentheses after it, its [1913 Webster]-style
source lines and [=a]-style letter entities, FOLDOC's <category> tags). reStructuredText loses
directives with code bodies, literal blocks after "::", comments, section adornments, table
borders and inline roles; POD loses its commands, verbatim paragraphs and formatting codes
(perlcn/jp/ko/tw, in Chinese, Japanese and Korean, are skipped). Then every line goes through a
text filter: it is kept if at least 60% (50% in the dictionaries) of its whitespace-separated
tokens, numbers and dashes aside, are words (letters with surrounding punctuation), which drops
code, tables and ASCII art; a line more than 10% outside Latin script goes too. Whitespace is
normalised to single spaces; punctuation is kept.

Each source's text is concatenated and cut at spaces into chunks of about --chunk characters (the
text is nearly all ASCII, so characters ~ bytes), as luceneutil cuts Wikipedia into 1 KB lines; a
chunk never spans two sources. The chunks of all sources are then interleaved in proportion
(chunk j of a source of n chunks sorts at (j + 0.5) / n), so any prefix of the output (--max-docs)
is a representative mix. Ids are "r0000001", "r0000002", ... in output order.

Standard library only; Debian's /usr/bin/python3. It installs nothing: a missing package is an
error naming it.
"""

import argparse
import glob
import gzip
import html
import json
import os
import re
import sys
import time

DICTD = "/usr/share/dictd"
LINUX_DOC = "/usr/share/doc/linux-doc-6.1/Documentation"
FORTUNES = "/usr/share/games/fortunes"
PERL_POD_GLOB = "/usr/share/perl/*/pod/*.pod"
PERL_NON_ENGLISH = {"perlcn.pod", "perljp.pod", "perlko.pod", "perltw.pod"}

# (source name, Debian package, a path that proves the package is installed)
SOURCES = [
    ("gcide", "dict-gcide", DICTD + "/gcide.dict.dz"),
    ("wordnet", "dict-wn", DICTD + "/wn.dict.dz"),
    ("foldoc", "dict-foldoc", DICTD + "/foldoc.dict.dz"),
    ("jargon", "dict-jargon", DICTD + "/jargon.dict.dz"),
    ("devil", "dict-devil", DICTD + "/devil.dict.dz"),
    ("linux-doc", "linux-doc-6.1", LINUX_DOC),
    ("perl-doc", "perl-doc", PERL_POD_GLOB),
    ("fortunes", "fortunes", FORTUNES + "/fortunes"),
]
PACKAGES = [p for _, p, _ in SOURCES]

# ---------------------------------------------------------------------------------------------
# the line filter shared by every source

_WORD = re.compile(r"""^[(\[{"'`“‘<*_\-—–]*[^\W\d_][^\W\d_'’\-.]*[)\]}"'`”’>.,;:!?*_]*$""")
_NUMBER = re.compile(r"""^[(\[#$~<]*[\d][\d.,:/\-x%]*[)\]>.,;:!?%]*$|^(?:-{1,3}|[—–,;]|\.{2,4}|…|&)$""")
_OVERSTRIKE = re.compile(r".\x08")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


_NON_LATIN = re.compile(r"[^\x00-\u02ff\u2000-\u206f\s]")


def texty(line, ratio=0.6):
    """True if the line reads like text: >= ratio of its tokens (numbers and dashes aside) are
    words, and at most 10% of its characters are outside Latin script and punctuation."""
    if len(_NON_LATIN.findall(line)) * 10 > len(line):
        return False
    words = other = 0
    for tok in line.split():
        if _WORD.match(tok):
            words += 1
        elif not _NUMBER.match(tok):
            other += 1
    return words > 0 and words >= ratio * (words + other)


def text_lines(lines, ratio=0.6):
    """Filter lines and join the survivors into one whitespace-normalised string."""
    kept = []
    for line in lines:
        if texty(line, ratio):
            kept.append(line)
    return " ".join(" ".join(kept).split())


# ---------------------------------------------------------------------------------------------
# dictd databases

_B64 = {c: i for i, c in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")}


def _b64num(s):
    n = 0
    for c in s:
        n = n * 64 + _B64[c]
    return n


def dictd_entries(name):
    """The entries of a dictd database in file order, as str (headers skipped)."""
    spans = set()
    headers = set()
    with open(os.path.join(DICTD, name + ".index"), encoding="utf-8", errors="replace") as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) < 3:
                continue
            try:
                span = (_b64num(parts[1]), _b64num(parts[2]))
            except KeyError:
                continue
            # dictfmt's headers: 00-database-*, 00databaseinfo, gcide's 00-gcide-*, 00-web1913-*
            if parts[0].startswith("00-") or parts[0].startswith("00database"):
                headers.add(span)
            else:
                spans.add(span)
    spans -= headers
    with gzip.open(os.path.join(DICTD, name + ".dict.dz")) as f:
        data = f.read()
    last_end = 0
    for off, length in sorted(spans):
        if off < last_end:  # an entry nested in the previous one (never seen; be safe)
            continue
        last_end = off + length
        yield data[off:off + length].decode("utf-8", errors="replace")


_BRACES = re.compile(r"[{}]")
_GCIDE_PRON = re.compile(r"\\[^\\\n]*\\(?:[ \t]*\([^()\n]*\))?")  # \Mel"io*rate\ (m[=e]l"y..)
_GCIDE_SOURCE_LINE = re.compile(
    r"^\s*\[(?:[^\]]*(?:Webster|WordNet|PJC|Century|Suppl|Chambers|RDH|MW\d*)[^\]]*)\]\s*$")
_GCIDE_LETTER = re.compile(r"\[(?:[='.~\-\"`]([A-Za-z])|([A-Za-z])\^)\]")
_GCIDE_NAMED = {
    "ae": "æ", "AE": "Æ", "oe": "œ", "OE": "Œ", "imac": "ī", "aum": "ä", "eth": "ð",
    "thorn": "þ", "ng": "ŋ", "deg": "°", "root": "√", "sect": "§", "yogh": "ȝ", "beta": "β",
    "alpha": "α", "th": "θ", "add": "", "asl": "", "udd": "", "dsdot": "", "bar": "",
}
_GCIDE_NAMED_RE = re.compile(r"\[(" + "|".join(sorted(_GCIDE_NAMED, key=len, reverse=True)) + r")\]")
_FOLDOC_TAG = re.compile(r"^(\s*)<[^<>\n]{1,60}>\s*")


def clean_gcide(entry):
    entry = _GCIDE_PRON.sub("", entry)
    entry = _GCIDE_LETTER.sub(lambda m: m.group(1) or m.group(2), entry)
    entry = _GCIDE_NAMED_RE.sub(lambda m: _GCIDE_NAMED[m.group(1)], entry)
    entry = _BRACES.sub("", entry)
    lines = [ln for ln in entry.split("\n") if not _GCIDE_SOURCE_LINE.match(ln)]
    return text_lines(lines, 0.5)


def clean_foldoc(entry):
    entry = _BRACES.sub("", entry)
    lines = [_FOLDOC_TAG.sub(r"\1", ln) for ln in entry.split("\n")]
    return text_lines(lines, 0.5)


def clean_plain_dict(entry):
    return text_lines(_BRACES.sub("", entry).split("\n"), 0.5)


def source_dict(name, cleaner):
    def gen():
        for entry in dictd_entries(name):
            t = cleaner(entry)
            if t:
                yield t
    return gen


# ---------------------------------------------------------------------------------------------
# reStructuredText / plain text of linux-doc

_RST_ADORN = re.compile(r"""^\s*([=\-~^"'`#*+_.:<>])\1{2,}\s*$""")
_RST_GRID = re.compile(r"^\s*\+[-=+:]+\+\s*$")
_RST_SIMPLE_TABLE = re.compile(r"^\s*=+(\s+=+)+\s*$")
_RST_DIRECTIVE = re.compile(r"^(\s*)\.\.\s+([\w:.\-]+)::(.*)$")
_RST_EXPLICIT = re.compile(r"^(\s*)\.\.(\s|$)")
_KEEP_DIRECTIVES = {"note", "warning", "attention", "important", "hint", "tip", "caution",
                    "danger", "error", "admonition", "seealso", "topic", "sidebar", "rubric",
                    "epigraph", "highlights", "pull-quote", "container", "class"}
_RST_ROLE = re.compile(r":[\w:+\-]+:`([^`<]*?)(?:\s*<[^`>]*>)?`")
_RST_LITERAL = re.compile(r"``([^`]+)``")
_RST_LINK = re.compile(r"`([^`<]*?)(?:\s*<[^`>]*>)?`__?")
_RST_INTERP = re.compile(r"`([^`]+)`")
_RST_STRONG = re.compile(r"\*\*([^*]+)\*\*")
_RST_EMPH = re.compile(r"(?<![\w*])\*([^*\s][^*]*)\*(?![\w*])")
_RST_SUBST = re.compile(r"\|([^|\s][^|]*)\|")
_RST_FOOTREF = re.compile(r"\[(?:#[\w\-]*|\*|\d+)\]_")


def _indent(line):
    e = line.expandtabs(8)
    return len(e) - len(e.lstrip())


def rst_inline(line):
    line = _RST_ROLE.sub(r"\1", line)
    line = _RST_LITERAL.sub(r"\1", line)
    line = _RST_LINK.sub(r"\1", line)
    line = _RST_INTERP.sub(r"\1", line)
    line = _RST_STRONG.sub(r"\1", line)
    line = _RST_EMPH.sub(r"\1", line)
    line = _RST_SUBST.sub(r"\1", line)
    line = _RST_FOOTREF.sub("", line)
    return line


def clean_rst(text):
    """Light reStructuredText stripping; returns the kept lines."""
    out = []
    lines = text.split("\n")
    skip_indent = None       # skipping a block more indented than this
    pending_literal = None   # the "::" paragraph's indent: its literal block follows
    for raw in lines:
        line = raw.rstrip()
        if not line.strip():
            continue
        ind = _indent(line)
        if skip_indent is not None:
            if ind > skip_indent:
                continue
            skip_indent = None
        if pending_literal is not None:
            if ind > pending_literal:
                skip_indent = pending_literal
                pending_literal = None
                continue
            pending_literal = None
        m = _RST_DIRECTIVE.match(line)
        if m:
            name = m.group(2).lower()
            if name in _KEEP_DIRECTIVES:
                rest = m.group(3).strip()
                if rest:
                    out.append(rst_inline(rest))
            else:
                skip_indent = ind
            continue
        if _RST_EXPLICIT.match(line):  # comment, target, footnote, substitution definition
            skip_indent = ind
            continue
        if _RST_ADORN.match(line) or _RST_GRID.match(line) or _RST_SIMPLE_TABLE.match(line):
            continue
        s = line.strip()
        if s.endswith("::"):
            pending_literal = ind
            s = s[:-2].rstrip()
            if not s:
                continue
            s += ":"
        out.append(rst_inline(s))
    return out


def linux_doc_files():
    files = []
    for path in glob.glob(LINUX_DOC + "/**/*", recursive=True):
        if not os.path.isfile(path):
            continue
        rel = os.path.relpath(path, LINUX_DOC)
        if rel.startswith("translations/"):
            continue
        base = rel[:-3] if rel.endswith(".gz") else rel
        if base.endswith(".rst") or base.endswith(".txt"):
            files.append(rel)
        elif rel.startswith("ABI/") and "." not in os.path.basename(base):
            files.append(rel)
    return sorted(files)


def read_maybe_gz(path):
    if path.endswith(".gz"):
        with gzip.open(path) as f:
            data = f.read()
    else:
        with open(path, "rb") as f:
            data = f.read()
    return data.decode("utf-8", errors="replace")


def source_linux_doc():
    for rel in linux_doc_files():
        text = read_maybe_gz(os.path.join(LINUX_DOC, rel))
        text = _CONTROL.sub(" ", text.replace("\r", ""))
        t = text_lines(clean_rst(text), 0.6)
        if t:
            yield t


# ---------------------------------------------------------------------------------------------
# POD of perl-doc

_POD_CODE = re.compile(r"([A-Z])<([^<>]*)>")


def _pod_code(letter, body):
    if letter == "E":
        named = {"lt": "<", "gt": ">", "verbar": "|", "sol": "/", "quot": '"', "amp": "&"}
        if body in named:
            return named[body]
        if body.isdigit():
            return chr(int(body))
        return html.unescape("&" + body + ";")
    if letter in ("X", "Z"):
        return ""
    if letter == "L":
        if "|" in body:
            return body.split("|", 1)[0]
        body = body.strip('"')
        return body.split("/")[-1].strip('"') if "/" in body and "://" not in body else body
    return body


def _pod_inline(s):
    s = re.sub(r"([A-Z])(<{2,})\s+(.*?)\s+(>{2,})",
               lambda m: _pod_code(m.group(1), m.group(3)) if len(m.group(2)) == len(m.group(4))
               else m.group(0), s)
    for _ in range(6):
        t = _POD_CODE.sub(lambda m: _pod_code(m.group(1), m.group(2)), s)
        if t == s:
            break
        s = t
    return s


def clean_pod(text):
    out = []
    in_begin = False
    for para in re.split(r"\n\s*\n", text):
        if not para.strip():
            continue
        if para[0] == "=":
            cmd, _, rest = para.partition(" ")
            cmd = cmd.split("\n")[0]
            if cmd == "=begin":
                in_begin = True
            elif cmd == "=end":
                in_begin = False
            elif cmd.startswith("=head") or cmd == "=item":
                rest = rest.strip()
                if rest and rest not in ("*", "-") and not in_begin:
                    out.extend(_pod_inline(rest).split("\n"))
            continue
        if in_begin or para[0] in " \t":  # verbatim (code) paragraph
            continue
        out.extend(_pod_inline(para).split("\n"))
    return out


def source_perl_doc():
    for path in sorted(glob.glob(PERL_POD_GLOB)):
        if os.path.basename(path) in PERL_NON_ENGLISH:
            continue
        with open(path, "rb") as f:
            text = f.read().decode("utf-8", errors="replace")
        t = text_lines(clean_pod(text), 0.6)
        if t:
            yield t


# ---------------------------------------------------------------------------------------------
# fortunes

def source_fortunes():
    names = sorted(n for n in os.listdir(FORTUNES)
                   if "." not in n and os.path.isfile(os.path.join(FORTUNES, n)))
    for n in names:
        with open(os.path.join(FORTUNES, n), "rb") as f:
            text = f.read().decode("utf-8", errors="replace")
        text = _OVERSTRIKE.sub("", text)
        text = _CONTROL.sub(" ", text.replace("\r", ""))
        for fortune in re.split(r"(?m)^%\s*$", text):
            t = text_lines(fortune.split("\n"), 0.6)
            if t:
                yield t


GENERATORS = {
    "gcide": source_dict("gcide", clean_gcide),
    "wordnet": source_dict("wn", clean_plain_dict),
    "foldoc": source_dict("foldoc", clean_foldoc),
    "jargon": source_dict("jargon", clean_plain_dict),
    "devil": source_dict("devil", clean_plain_dict),
    "linux-doc": source_linux_doc,
    "perl-doc": source_perl_doc,
    "fortunes": source_fortunes,
}

# ---------------------------------------------------------------------------------------------


def chunks(segments, size):
    """Concatenate the segments (joined by a space) and cut at spaces into ~size pieces."""
    buf = ""
    for seg in segments:
        buf = buf + " " + seg if buf else seg
        start = 0
        n = len(buf)
        while n - start > size:
            cut = buf.rfind(" ", start, start + size + 1)
            if cut <= start:
                cut = buf.find(" ", start + size)
                if cut < 0:
                    break
            yield buf[start:cut]
            start = cut + 1
        buf = buf[start:]
    if buf:
        yield buf


def missing_packages():
    missing = []
    for name, pkg, probe in SOURCES:
        if not (glob.glob(probe) if "*" in probe else os.path.exists(probe)):
            missing.append((name, pkg, probe))
    return missing


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", help="the NDJSON file to write")
    ap.add_argument("--max-docs", type=int, default=0, help="write at most N documents")
    ap.add_argument("--chunk", type=int, default=1000, help="chunk size, characters (~bytes)")
    ap.add_argument("--packages", action="store_true",
                    help="print the Debian packages this reads and exit")
    args = ap.parse_args()
    if args.packages:
        print(" ".join(PACKAGES))
        return 0
    if not args.out:
        ap.error("--out is required")
    if args.chunk < 16:
        ap.error("--chunk must be at least 16")
    missing = missing_packages()
    if missing:
        for name, pkg, probe in missing:
            print("make_corpus.py: source %s needs the Debian package %s (%s not found)"
                  % (name, pkg, probe), file=sys.stderr)
        print("make_corpus.py: install them with: apt-get install -y %s"
              % " ".join(p for _, p, _ in missing), file=sys.stderr)
        return 2

    t0 = time.monotonic()
    per_source = []
    for name, _pkg, _probe in SOURCES:
        t1 = time.monotonic()
        cs = list(chunks(GENERATORS[name](), args.chunk))
        per_source.append((name, cs))
        print("make_corpus.py: %-10s %8d chunks  %.1f s"
              % (name, len(cs), time.monotonic() - t1), file=sys.stderr)

    order = []
    for si, (_name, cs) in enumerate(per_source):
        n = len(cs)
        order.extend(((j + 0.5) / n, si, j) for j in range(n))
    order.sort()
    if args.max_docs > 0:
        order = order[:args.max_docs]

    docs = [0] * len(per_source)
    nbytes = [0] * len(per_source)
    tmp = args.out + ".tmp"
    with open(tmp, "w", encoding="utf-8") as out:
        for i, (_key, si, j) in enumerate(order, 1):
            body = per_source[si][1][j]
            line = json.dumps({"id": "r%07d" % i, "body": body}, ensure_ascii=False,
                              separators=(",", ":"))
            out.write(line)
            out.write("\n")
            docs[si] += 1
            nbytes[si] += len(body.encode("utf-8"))
    os.replace(tmp, args.out)

    total_docs = sum(docs)
    total_bytes = sum(nbytes)
    print("make_corpus.py: %-10s %10s %14s" % ("source", "docs", "body bytes"), file=sys.stderr)
    for (name, _cs), d, b in zip(per_source, docs, nbytes):
        print("make_corpus.py: %-10s %10d %14d" % (name, d, b), file=sys.stderr)
    print("make_corpus.py: %-10s %10d %14d  -> %s in %.1f s"
          % ("total", total_docs, total_bytes, args.out, time.monotonic() - t0), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
