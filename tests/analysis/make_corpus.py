#!/usr/bin/python3
"""make_corpus.py — a deterministic multilingual corpus for tests/analysis/compare.py, built at test
time from text that Debian packages install (nothing from other projects is committed here).

    tests/analysis/make_corpus.py OUT_DIR [--per-lang N]

Writes OUT_DIR/<language>.txt (one sentence a line, UTF-8) for every language of the table below
and prints one line per language: its name, the number of sentences, and where they came from.

Source: the gettext catalogues under /usr/share/locale/<locale>/LC_MESSAGES/<domain>.mo of a fixed
list of domains (DOMAINS), all from Debian 12 packages that are Essential or required, or that
the Makefile's TEST_PACKAGES installs (iso-codes, libglib2.0-data, shared-mime-info, libc-l10n):
translated messages are real sentences and labels written by people, in 80+ languages. English
text is the catalogues' msgids. The .mo format is read directly (magic, counts, offset tables).

Each message is split into lines, printf directives and markup are kept (both engines see the
same bytes; they exercise punctuation), lines shorter than 12 characters or without a letter of
the language's script are dropped, and the rest is de-duplicated. The sample is the N lines with
the smallest SHA-1 (stable across runs and machines that have the same package versions), then
sorted by that hash. Alternatives rejected: translated manual pages (manpages-fr, -de, -ja, ...)
give longer prose but need troff stripping and cover fewer of the languages (no Armenian, Bengali,
Hindi, Thai, Sorani, Basque, ...); hunspell word lists give words, not sentences.
"""
import hashlib
import os
import re
import struct
import sys
import unicodedata

LOCALE_DIR = os.environ.get("CORPUS_LOCALE_DIR", "/usr/share/locale")

# domain -> Debian package (for the record; the Makefile installs the non-required ones)
DOMAINS = {
    "coreutils": "coreutils", "bash": "bash", "grep": "grep", "sed": "sed", "tar": "tar",
    "findutils": "findutils", "diffutils": "diffutils", "dpkg": "dpkg", "apt": "apt",
    "libapt-pkg6.0": "libapt-pkg6.0", "shadow": "login/passwd", "Linux-PAM": "libpam-runtime",
    "libc": "libc-l10n", "glib20": "libglib2.0-data", "shared-mime-info": "shared-mime-info",
    "iso_639-3": "iso-codes", "iso_3166-1": "iso-codes", "iso_3166-2": "iso-codes",
    "iso_4217": "iso-codes", "iso_15924": "iso-codes",
}

# language -> (locales, script test)
def _script(*names):
    def ok(ch):
        try:
            n = unicodedata.name(ch)
        except ValueError:
            return False
        return any(n.startswith(s) for s in names)
    return ok

LATIN = _script("LATIN")
LANGS = {
    "arabic": (["ar"], _script("ARABIC")),
    "armenian": (["hy"], _script("ARMENIAN")),
    "basque": (["eu"], LATIN),
    "bengali": (["bn", "bn_IN", "bn_BD"], _script("BENGALI")),
    "brazilian": (["pt_BR"], LATIN),
    "bulgarian": (["bg"], _script("CYRILLIC")),
    "catalan": (["ca"], LATIN),
    "chinese": (["zh_CN", "zh_TW"], _script("CJK")),
    "czech": (["cs"], LATIN),
    "danish": (["da"], LATIN),
    "dutch": (["nl"], LATIN),
    "english": ([], LATIN),
    "estonian": (["et"], LATIN),
    "finnish": (["fi"], LATIN),
    "french": (["fr"], LATIN),
    "galician": (["gl"], LATIN),
    "german": (["de"], LATIN),
    "greek": (["el"], _script("GREEK")),
    "hindi": (["hi"], _script("DEVANAGARI")),
    "hungarian": (["hu"], LATIN),
    "indonesian": (["id"], LATIN),
    "irish": (["ga"], LATIN),
    "italian": (["it"], LATIN),
    "japanese": (["ja"], _script("HIRAGANA", "KATAKANA", "CJK")),
    "korean": (["ko"], _script("HANGUL")),
    "latvian": (["lv"], LATIN),
    "lithuanian": (["lt"], LATIN),
    "norwegian": (["nb", "nn"], LATIN),
    "persian": (["fa"], _script("ARABIC")),
    "polish": (["pl"], LATIN),
    "portuguese": (["pt"], LATIN),
    "romanian": (["ro"], LATIN),
    "russian": (["ru"], _script("CYRILLIC")),
    "sorani": (["ckb"], _script("ARABIC")),
    "spanish": (["es"], LATIN),
    "swedish": (["sv"], LATIN),
    "thai": (["th"], _script("THAI")),
    "turkish": (["tr"], LATIN),
}


def read_mo(path):
    """Yields (msgid, msgstr) of a GNU .mo file (either byte order); plural forms are split on NUL."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 28:
        return
    magic = struct.unpack("<I", data[:4])[0]
    order = "<" if magic == 0x950412DE else ">" if struct.unpack(">I", data[:4])[0] == 0x950412DE else None
    if order is None:
        return
    _rev, n, orig, trans = struct.unpack(order + "4I", data[4:20])
    for k in range(n):
        ol, oo = struct.unpack(order + "2I", data[orig + 8 * k: orig + 8 * k + 8])
        tl, to = struct.unpack(order + "2I", data[trans + 8 * k: trans + 8 * k + 8])
        msgid = data[oo: oo + ol]
        msgstr = data[to: to + tl]
        if not msgid:  # the header entry
            continue
        if b"\x04" in msgid:  # msgctxt EOT msgid
            msgid = msgid.split(b"\x04", 1)[1]
        yield msgid.decode("utf-8", "replace").split("\x00")[0], msgstr.decode("utf-8", "replace").split("\x00")


def lines_of(texts, ok):
    for t in texts:
        for line in t.replace("\t", " ").split("\n"):
            line = " ".join(line.split())
            if len(line) < 12 or len(line) > 400:
                continue
            if "\ufffd" in line:
                continue
            letters = sum(1 for ch in line if ok(ch))
            if letters < 4:
                continue
            yield line


def collect(lang, per_lang):
    locales, ok = LANGS[lang]
    texts, sources = [], set()
    if lang == "english":
        # msgids: the same in every locale's catalogue; read one locale per domain
        for domain in sorted(DOMAINS):
            for loc in ("fr", "de", "es"):
                p = os.path.join(LOCALE_DIR, loc, "LC_MESSAGES", domain + ".mo")
                if os.path.exists(p):
                    texts.extend(mid for mid, _ in read_mo(p))
                    sources.add(domain)
                    break
    else:
        for loc in locales:
            for domain in sorted(DOMAINS):
                p = os.path.join(LOCALE_DIR, loc, "LC_MESSAGES", domain + ".mo")
                if os.path.exists(p):
                    for _mid, strs in read_mo(p):
                        texts.extend(s for s in strs if s)
                    sources.add(domain)
    uniq = set(lines_of(texts, ok))
    keyed = sorted((hashlib.sha1(l.encode()).hexdigest(), l) for l in uniq)
    return [l for _h, l in keyed[:per_lang]], sorted(sources)


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    per_lang = 300
    if "--per-lang" in argv:
        per_lang = int(argv[argv.index("--per-lang") + 1])
        args.remove(str(per_lang))
    if len(args) != 1:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    out = args[0]
    os.makedirs(out, exist_ok=True)
    for lang in LANGS:
        lines, sources = collect(lang, per_lang)
        with open(os.path.join(out, lang + ".txt"), "w", encoding="utf-8") as f:
            for l in lines:
                f.write(l + "\n")
        print(f"{lang}\t{len(lines)}\t{','.join(sources) or '-'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
