#!/usr/bin/env python3
"""gen_utr30.py — rebuilds Lucene's UTR #30 folding data (ICUFoldingFilter's
utr30.nrm) for Debian's ICU, and embeds it into a C file (nothing generated
is committed).

    gen_utr30.py JAR_DIR GENNORM2 ICUPKG WORK_DIR OUT.c

Lucene 4.10's lucene-analyzers-icu jar carries utr30.nrm in ICU 53's
Normalizer2 data format 2 (big-endian, a UTrie2 of 16-bit values), which
ICU 72 refuses (it reads format 4 only). This script decodes format 2 —
per code point its canonical combining class and its mapping (one-way,
round-trip or algorithmic), the decoder written from ICU's documented
data layout (normalizer2impl.h) — writes them in gennorm2's source syntax
("cp:ccc", "cp=mapping", "cp>mapping"), has Debian's gennorm2 compile them
into a format-4 .nrm and icupkg pack it into a one-item ICU package
"trovefold" (trovefold/utr30.nrm) that tf_icu.c registers with
udata_setAppData and opens with unorm2_getInstance("trovefold", "utr30").

Rejected: reading the .nrm in trove at run time (a second normalization
engine); approximating UTR #30 from ICU's nfkc_cf plus transliterators
(different answers for every folding Lucene's data adds).
"""
import glob
import os
import struct
import subprocess
import sys
import zipfile

ENTRY = "org/apache/lucene/analysis/icu/utr30.nrm"

# normalizer2impl.h, format 2
IX_NORM_TRIE_OFFSET, IX_EXTRA_DATA_OFFSET = 0, 1
IX_MIN_YES_NO, IX_MIN_NO_NO, IX_LIMIT_NO_NO, IX_MIN_MAYBE_YES = 10, 11, 12, 13
MIN_NORMAL_MAYBE_YES, JAMO_VT, MAX_DELTA = 0xFE00, 0xFF00, 0x40
HAS_CCC_LCCC_WORD, HAS_RAW_MAPPING, LENGTH_MASK = 0x80, 0x40, 0x1F


def decode(nrm):
    header_size = struct.unpack_from(">H", nrm, 0)[0]
    if nrm[2:4] != b"\xda\x27":
        sys.exit("gen_utr30.py: not an ICU data file")
    big = nrm[8] == 1
    fmt = nrm[12:16]
    if fmt != b"Nrm2" or nrm[16] != 2:
        sys.exit("gen_utr30.py: expected Normalizer2 data format 2, got %r %d" % (fmt, nrm[16]))
    e = ">" if big else "<"
    d = nrm[header_size:]
    n_ix = struct.unpack_from(e + "i", d, 0)[0] // 4
    ix = struct.unpack_from(e + "%di" % n_ix, d, 0)
    min_yes_no, min_no_no = ix[IX_MIN_YES_NO], ix[IX_MIN_NO_NO]
    limit_no_no, min_maybe_yes = ix[IX_LIMIT_NO_NO], ix[IX_MIN_MAYBE_YES]

    # the UTrie2 (16-bit values): header, then index and data in one array
    t = ix[IX_NORM_TRIE_OFFSET]
    sig, _opts, index_len, shifted_data_len, _i2null, _dnull, shifted_high = struct.unpack_from(
        e + "IHHHHHH", d, t)
    if sig != 0x54726932:
        sys.exit("gen_utr30.py: not a UTrie2")
    data_len = shifted_data_len << 2
    arr = struct.unpack_from(e + "%dH" % (index_len + data_len), d, t + 16)
    high_start = shifted_high << 11
    high_value = arr[index_len + data_len - 4]

    def norm16(c):
        if c < 0x10000:
            return arr[(arr[c >> 5] << 2) + (c & 31)]
        if c >= high_start:
            return high_value
        # UTRIE2_INDEX_1_OFFSET (0x840) minus the omitted BMP part (0x20)
        i1 = arr[0x820 + (c >> 11)]
        i2 = arr[i1 + ((c >> 5) & 0x3F)]
        return arr[(i2 << 2) + (c & 31)]

    x0 = ix[IX_EXTRA_DATA_OFFSET]
    x_end = ix[IX_EXTRA_DATA_OFFSET + 1]
    units = struct.unpack_from(e + "%dH" % ((x_end - x0) // 2), d, x0)
    base = MIN_NORMAL_MAYBE_YES - min_maybe_yes  # extraData[k] = units[base + k]

    def xd(k):
        return units[base + k]

    def to_cps(us):
        out, i = [], 0
        while i < len(us):
            u = us[i]
            if 0xD800 <= u < 0xDC00 and i + 1 < len(us) and 0xDC00 <= us[i + 1] < 0xE000:
                out.append(0x10000 + ((u - 0xD800) << 10) + (us[i + 1] - 0xDC00))
                i += 2
            else:
                out.append(u)
                i += 1
        return out

    def mapping(n16):
        first = xd(n16)
        length = first & LENGTH_MASK
        full = [xd(n16 + 1 + i) for i in range(length)]
        ccc = 0
        if first & HAS_CCC_LCCC_WORD:
            ccc = xd(n16 - 1) & 0xFF
        if first & HAS_RAW_MAPPING:
            rpos = n16 - ((first >> 7) & 1) - 1
            rm0 = xd(rpos)
            if rm0 <= LENGTH_MASK:
                raw = [xd(rpos - rm0 + i) for i in range(rm0)]
            else:
                raw = [rm0] + full[2:]
            return to_cps(raw), ccc
        return to_cps(full), ccc

    lines = []
    for c in range(0x110000):
        if 0xD800 <= c < 0xE000:
            continue
        n = norm16(c)
        if n == 0 or n == JAMO_VT:
            continue
        if n >= MIN_NORMAL_MAYBE_YES:
            if n & 0xFF:
                lines.append("%04X:%d" % (c, n & 0xFF))
        elif n < min_yes_no or n == min_yes_no:
            continue  # yes-yes (maybe combining forward) or a Hangul syllable
        elif n < limit_no_no:
            m, ccc = mapping(n)
            sep = "=" if n < min_no_no else ">"
            if sep == "=" and len(m) != 2:
                sep = ">"
            if ccc:
                lines.append("%04X:%d" % (c, ccc))
            lines.append("%04X%s%s" % (c, sep, " ".join("%04X" % x for x in m)))
        elif n < min_maybe_yes:
            lines.append("%04X>%04X" % (c, c + n - (min_maybe_yes - MAX_DELTA - 1)))
        # maybe-yes with ccc 0: derived by gennorm2 from the round-trip mappings
    return lines


def c_bytes(data):
    out = []
    for i in range(0, len(data), 20):
        out.append(",".join(str(b) for b in data[i:i + 20]))
    return ",\n    ".join(out)


def main():
    jar_dir, gennorm2, icupkg, work, out = sys.argv[1:6]
    jars = sorted(glob.glob(os.path.join(jar_dir, "lucene-analyzers-icu-4.10*.jar")))
    if not jars:
        sys.exit("gen_utr30.py: no lucene-analyzers-icu 4.10 jar in %s "
                 "(apt-get install liblucene4.10-java)" % jar_dir)
    nrm = zipfile.ZipFile(jars[-1]).read(ENTRY)
    os.makedirs(os.path.join(work, "trovefold"), exist_ok=True)
    src = os.path.join(work, "utr30.txt")
    with open(src, "w") as f:
        f.write("* Unicode 6.3.0\n")  # ICU 53's Unicode version
        f.write("\n".join(decode(nrm)) + "\n")
    item = os.path.join(work, "trovefold", "utr30.nrm")
    subprocess.run([gennorm2, "-o", item, src], check=True, stdout=subprocess.DEVNULL)
    dat = os.path.join(work, "trovefold.dat")
    if os.path.exists(dat):
        os.remove(dat)
    subprocess.run([icupkg, "-tl", "-s", os.path.join(work, "trovefold"), "-a", "utr30.nrm",
                    "new", dat], check=True, stdout=subprocess.DEVNULL)
    data = open(dat, "rb").read()
    with open(out + ".tmp", "w") as f:
        f.write("/* generated by src/text/gen_utr30.py from Lucene 4.10's utr30.nrm */\n")
        f.write("#include <stddef.h>\n")
        f.write("const unsigned char tv_utr30_pkg[] __attribute__((aligned(16))) = {\n    ")
        f.write(c_bytes(data))
        f.write("};\nconst size_t tv_utr30_pkg_len = %d;\n" % len(data))
    os.replace(out + ".tmp", out)


if __name__ == "__main__":
    main()
