#!/usr/bin/env python3
"""gen_resources.py — embeds the analysis data trove reads from Debian's
Lucene 4.10 jars (liblucene4.10-java): stop word lists and stemmer rule
files, as they are, into a C table (nothing generated is committed).

    gen_resources.py JAR_DIR OUT.c [LUCENE8_JAR_DIR]

Every non-class file under org/apache/lucene/analysis/ of the analyzers
jars whose name ends in .txt or .rslp is embedded under its path below
org/apache/lucene/analysis/ (e.g. "snowball/french_stop.txt",
"ar/stopwords.txt", "pt/portuguese.rslp"). resources.c parses them.

KStem's dictionary is not a file in the jar but static String arrays of
compiled classes (KStemmer, KStemData1..8). kstem_dictionary() runs each
class's static initializer symbolically (the ldc/aastore sequence, so
arrays keep their source order; pairs are nested arrays) and embeds the
result as "en/kstem.dict", one entry a line: "word" (a plain headword),
"word<TAB>root" (a direct conflation or nationality) or "word<TAB>="
(an exception word: its own root, never stemmed further). tf_kstem.c
reads it.

Lucene 4.10 lacks the stop word lists of three analyzers Lucene 10 has
(bn, et, lt/stopwords.txt); Debian's Lucene 8 jar (liblucene8-java) has
them, the lists Lucene 10 ships. That package conflicts with
liblucene4.10-java, so it is not installed: LUCENE8_JAR_DIR is where its
jars were unpacked (`apt-get download liblucene8-java; dpkg-deb -x`).
LATER lists the files taken from it; without it they are absent and the
analyzers that need them answer 400 naming the missing list.
"""
import glob
import os
import struct
import sys
import zipfile

PREFIX = "org/apache/lucene/analysis/"
MODULES = ["common", "kuromoji", "smartcn", "stempel", "icu"]
LATER = ["bn/stopwords.txt", "et/stopwords.txt", "lt/stopwords.txt"]


def c_bytes(data):
    out, line = [], ""
    for b in data:
        if b == 0x22 or b == 0x5C or b < 0x20 or b >= 0x7F or b == 0x3F:
            piece = "\\%03o" % b
        else:
            piece = chr(b)
        line += piece
        if len(line) > 90:
            out.append('"%s"' % line)
            line = ""
    out.append('"%s"' % line)
    return "\n    ".join(out)


def class_statics(data):
    """The String / String[][] values a class's <clinit> stores in its
    static fields, by field name (only the opcodes array literals use)."""
    n = struct.unpack(">H", data[8:10])[0]
    cp, pos, i = [None] * n, 10, 1
    while i < n:
        tag = data[pos]
        if tag == 1:
            ln = struct.unpack(">H", data[pos + 1:pos + 3])[0]
            cp[i] = ("utf8", data[pos + 3:pos + 3 + ln].decode("utf-8", "surrogatepass"))
            pos += 3 + ln
        elif tag in (3, 4):
            cp[i] = ("int", struct.unpack(">i", data[pos + 1:pos + 5])[0])
            pos += 5
        elif tag in (5, 6):
            pos += 9
            i += 1
        elif tag in (7, 8, 16, 19, 20):
            cp[i] = (tag, struct.unpack(">H", data[pos + 1:pos + 3])[0])
            pos += 3
        elif tag in (9, 10, 11, 12, 17, 18):
            cp[i] = (tag,) + struct.unpack(">HH", data[pos + 1:pos + 5])
            pos += 5
        elif tag == 15:
            pos += 4
        else:
            sys.exit("gen_resources.py: unknown constant pool tag %d" % tag)
        i += 1
    pos += 6
    pos += 2 + 2 * struct.unpack(">H", data[pos:pos + 2])[0]
    methods = []
    for _ in range(2):  # fields, then methods
        cnt = struct.unpack(">H", data[pos:pos + 2])[0]
        pos += 2
        for _ in range(cnt):
            _, name, _, ac = struct.unpack(">HHHH", data[pos:pos + 8])
            pos += 8
            attrs = {}
            for _ in range(ac):
                an, al = struct.unpack(">HI", data[pos:pos + 6])
                attrs[cp[an][1]] = data[pos + 6:pos + 6 + al]
                pos += 6 + al
            methods.append((cp[name][1], attrs))
    code = [a for nm, a in methods if nm == "<clinit>"][0]["Code"]
    bc = code[8:8 + struct.unpack(">I", code[4:8])[0]]

    def const(idx):
        e = cp[idx]
        return cp[e[1]][1] if e[0] == 8 else e[1]

    stack, pc, out = [], 0, {}
    while pc < len(bc):
        op = bc[pc]
        if 0x02 <= op <= 0x08:  # iconst_m1..iconst_5
            stack.append(op - 3)
            pc += 1
        elif op == 0x10:  # bipush
            stack.append(struct.unpack(">b", bc[pc + 1:pc + 2])[0])
            pc += 2
        elif op == 0x11:  # sipush
            stack.append(struct.unpack(">h", bc[pc + 1:pc + 3])[0])
            pc += 3
        elif op == 0x12:  # ldc
            stack.append(const(bc[pc + 1]))
            pc += 2
        elif op == 0x13:  # ldc_w
            stack.append(const(struct.unpack(">H", bc[pc + 1:pc + 3])[0]))
            pc += 3
        elif op == 0xBD:  # anewarray
            stack.append([None] * stack.pop())
            pc += 3
        elif op == 0x59:  # dup
            stack.append(stack[-1])
            pc += 1
        elif op == 0x53:  # aastore
            v, ix, arr = stack.pop(), stack.pop(), stack.pop()
            arr[ix] = v
            pc += 1
        elif op == 0xB3:  # putstatic
            ref = cp[struct.unpack(">H", bc[pc + 1:pc + 3])[0]]
            out[cp[cp[ref[2]][1]][1]] = stack.pop()
            pc += 3
        else:  # the dictionary's own setup (a method call): done
            break
    return out


def kstem_dictionary(z):
    base = PREFIX + "en/"
    k = class_statics(z.read(base + "KStemmer.class"))
    lines, seen = [], set()

    def add(word, tail):
        if word in seen:
            sys.exit("gen_resources.py: KStem entry [%s] twice" % word)
        seen.add(word)
        lines.append(word + tail)

    for w in k["exceptionWords"]:
        add(w, "\t=")
    for w, root in k["directConflations"] + k["countryNationality"]:
        add(w, "\t" + root)
    for i in range(1, 9):
        for w in class_statics(z.read(base + "KStemData%d.class" % i))["data"]:
            add(w, "")
    for w in k["supplementDict"] + k["properNouns"]:
        add(w, "")
    return ("\n".join(lines) + "\n").encode("ascii")


def main():
    jar_dir, out = sys.argv[1], sys.argv[2]
    entries = []
    for mod in MODULES:
        jars = sorted(glob.glob(os.path.join(jar_dir, "lucene-analyzers-%s-4.10*.jar" % mod)))
        if not jars:
            sys.exit("gen_resources.py: no lucene-analyzers-%s 4.10 jar in %s "
                     "(apt-get install liblucene4.10-java)" % (mod, jar_dir))
        z = zipfile.ZipFile(jars[-1])
        for name in sorted(z.namelist()):
            if not name.startswith(PREFIX) or not (name.endswith(".txt") or name.endswith(".rslp")):
                continue
            entries.append((name[len(PREFIX):], z.read(name)))
        if mod == "common":
            entries.append(("en/kstem.dict", kstem_dictionary(z)))
    have = {n for n, _ in entries}
    later = sorted(glob.glob(os.path.join(sys.argv[3], "lucene-analyzers-common-8.*.jar"))) \
        if len(sys.argv) > 3 and sys.argv[3] else []
    if later:
        z = zipfile.ZipFile(later[-1])
        for name in LATER:
            if name not in have and PREFIX + name in z.namelist():
                entries.append((name, z.read(PREFIX + name)))
    with open(out + ".tmp", "w") as f:
        f.write("/* generated by src/text/gen_resources.py from Debian's Lucene 4.10 (and 8) jars */\n")
        f.write('#include "text/text_int.h"\n\n')
        f.write("const tv_text_resource tv_text_resources[] = {\n")
        for name, data in entries:
            f.write('  {"%s", %d,\n    %s},\n' % (name, len(data), c_bytes(data)))
        f.write("};\n")
        f.write("const size_t tv_text_resource_count = %d;\n" % len(entries))
    os.replace(out + ".tmp", out)


if __name__ == "__main__":
    main()
