#!/usr/bin/python3
"""gen_unicode.py — generates the text layer's Unicode tables (unicode.h).

Usage: gen_unicode.py UCD_DIR OUT.c

Reads, from Debian's unicode-data (UCD_DIR, normally /usr/share/unicode):
  auxiliary/WordBreakProperty.txt   Word_Break
  emoji/emoji-data.txt              Extended_Pictographic, Emoji, Emoji_Modifier(_Base)
  LineBreak.txt                     Line_Break = SA (Complex_Context)
  Scripts.txt                       Han, Hiragana, Hangul
  Blocks.txt                        Halfwidth and Fullwidth Forms
  UnicodeData.txt                   general category, simple case mappings, decompositions

Writes one C file with a two-stage lookup table (stage1 indexed by cp >> 7,
deduplicated 128-entry blocks in stage2, distinct records in a props table)
and the ASCII-folding table. Only the Python standard library is used.
"""
import sys, os

WB_NAMES = ["Other", "CR", "LF", "Newline", "Extend", "ZWJ", "Regional_Indicator", "Format",
            "Katakana", "Hebrew_Letter", "ALetter", "Single_Quote", "Double_Quote", "MidNumLet",
            "MidLetter", "MidNum", "Numeric", "ExtendNumLet", "WSegSpace"]
WB_C = ["OTHER", "CR", "LF", "NEWLINE", "EXTEND", "ZWJ", "RI", "FORMAT", "KATAKANA",
        "HEBREW_LETTER", "ALETTER", "SINGLE_QUOTE", "DOUBLE_QUOTE", "MIDNUMLET", "MIDLETTER",
        "MIDNUM", "NUMERIC", "EXTENDNUMLET", "WSEGSPACE"]
F = dict(EXTPICT=1 << 0, EMOJI=1 << 1, EMB=1 << 2, EM=1 << 3, EMOJICHAR=1 << 4, SA=1 << 5,
         HAN=1 << 6, HIRAGANA=1 << 7, HANGUL=1 << 8, NUMERIC=1 << 9, JWHITE=1 << 10,
         JLETTER=1 << 11, MARK=1 << 12, JPUNCT=1 << 13)
N = 0x110000


# General categories numbered as Java's Character.getType (UNASSIGNED = 0,
# UPPERCASE_LETTER = 1, ...; 17 is unused there too).
JAVA_GC = ["Cn", "Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Me", "Mc", "Nd", "Nl", "No", "Zs", "Zl",
           "Zp", "Cc", "Cf", "", "Co", "Cs", "Pd", "Ps", "Pe", "Pc", "Po", "Sm", "Sc", "Sk", "So",
           "Pi", "Pf"]


def ranges(path):
    """Yields (lo, hi, value) from a UCD 'cp..cp ; value # comment' file."""
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            parts = [p.strip() for p in line.split(";")]
            cps = parts[0]
            if ".." in cps:
                lo, hi = cps.split("..")
            else:
                lo = hi = cps
            yield int(lo, 16), int(hi, 16), parts[1]


def main():
    ucd, out = sys.argv[1], sys.argv[2]
    wb = [0] * N
    flags = [0] * N
    lower = [0] * N
    upper = [0] * N
    gc = ["Cn"] * N
    decomp = {}

    for lo, hi, v in ranges(os.path.join(ucd, "auxiliary", "WordBreakProperty.txt")):
        idx = WB_NAMES.index(v)
        for c in range(lo, hi + 1):
            wb[c] = idx
    emoji_props = {"Extended_Pictographic": "EXTPICT", "Emoji": "EMOJI",
                   "Emoji_Modifier_Base": "EMB", "Emoji_Modifier": "EM"}
    for lo, hi, v in ranges(os.path.join(ucd, "emoji", "emoji-data.txt")):
        if v in emoji_props:
            for c in range(lo, hi + 1):
                flags[c] |= F[emoji_props[v]]
    for lo, hi, v in ranges(os.path.join(ucd, "LineBreak.txt")):
        if v == "SA":
            for c in range(lo, hi + 1):
                flags[c] |= F["SA"]
    scripts = {"Han": "HAN", "Hiragana": "HIRAGANA", "Hangul": "HANGUL"}
    for lo, hi, v in ranges(os.path.join(ucd, "Scripts.txt")):
        if v in scripts:
            for c in range(lo, hi + 1):
                flags[c] |= F[scripts[v]]
    halfwidth = None
    for lo, hi, v in ranges(os.path.join(ucd, "Blocks.txt")):
        if v == "Halfwidth and Fullwidth Forms":
            halfwidth = (lo, hi)

    digit_zero = []  # the 0 of each run of ten decimal digits (Nd), for decimal_digit
    with open(os.path.join(ucd, "UnicodeData.txt"), encoding="utf-8") as f:
        first = None
        for line in f:
            fld = line.rstrip("\n").split(";")
            cp = int(fld[0], 16)
            name = fld[1]
            if name.endswith(", First>"):
                first = cp
                continue
            lo = first if name.endswith(", Last>") else cp
            first = None
            for c in range(lo, cp + 1):
                gc[c] = fld[2]
                if fld[12]:
                    upper[c] = int(fld[12], 16) - c
                if fld[13]:
                    lower[c] = int(fld[13], 16) - c
            if fld[5]:
                decomp[cp] = fld[5]
            if fld[2] == "Nd" and fld[6] == "0":
                digit_zero.append(cp)

    for c in range(N):
        g = gc[c]
        if g in ("Zs", "Zl", "Zp") and c not in (0x00A0, 0x2007, 0x202F):
            flags[c] |= F["JWHITE"]
        if 0x09 <= c <= 0x0D or 0x1C <= c <= 0x1F:
            flags[c] |= F["JWHITE"]
        if g in ("Lu", "Ll", "Lt", "Lm", "Lo"):
            flags[c] |= F["JLETTER"]
        if g in ("Mn", "Mc", "Me"):
            flags[c] |= F["MARK"]
        if g in ("Zs", "Zl", "Zp", "Cc", "Cf", "Pd", "Ps", "Pe", "Pc", "Po", "Sm", "Sc", "Sk",
                 "So", "Pi", "Pf"):
            flags[c] |= F["JPUNCT"]
        if wb[c] == WB_NAMES.index("Numeric") or (
                halfwidth and halfwidth[0] <= c <= halfwidth[1] and g == "Nd"):
            flags[c] |= F["NUMERIC"]
        # the standard tokenizer's EmojiChar: Extended_Pictographic, or Emoji minus
        # regional indicators, keycap bases, "accidental" emoji and modifiers
        rkam = (wb[c] == WB_NAMES.index("Regional_Indicator") or chr(c) in "0123456789#*"
                or c in (0xA9, 0xAE, 0x2122, 0x3030, 0x303D) or flags[c] & F["EM"])
        if flags[c] & F["EXTPICT"] or (flags[c] & F["EMOJI"] and not rkam):
            flags[c] |= F["EMOJICHAR"]

    # two-stage table
    records = {}
    rec_list = []
    idx = [0] * N
    for c in range(N):
        r = (wb[c], JAVA_GC.index(gc[c]), flags[c], lower[c], upper[c])
        i = records.get(r)
        if i is None:
            i = records[r] = len(rec_list)
            rec_list.append(r)
        idx[c] = i
    assert len(rec_list) < 65536
    blocks = {}
    block_list = []
    stage1 = []
    for b in range(N >> 7):
        blk = tuple(idx[b << 7:(b + 1) << 7])
        j = blocks.get(blk)
        if j is None:
            j = blocks[blk] = len(block_list)
            block_list.append(blk)
        stage1.append(j)

    # ASCII folding
    compat_ok = {"<wide>", "<narrow>", "<super>", "<sub>", "<circle>", "<font>", "<fraction>"}

    def latin(c):
        return (0x80 <= c <= 0x24F or 0x1E00 <= c <= 0x1EFF or 0x2C60 <= c <= 0x2C7F
                or 0xA720 <= c <= 0xA7FF or 0xFB00 <= c <= 0xFB06 or 0x2460 <= c <= 0x24FF
                or 0x2150 <= c <= 0x218F)

    def expand(c, top):
        d = decomp.get(c)
        if not d:
            return [c]
        parts = d.split()
        if parts[0].startswith("<"):
            tag = parts[0]
            if not (tag in compat_ok or (tag == "<compat>" and latin(top))):
                return None
            parts = parts[1:]
        res = []
        for p in parts:
            e = expand(int(p, 16), top)
            if e is None:
                return None
            res.extend(e)
        return res

    extras = {
        0xC6: "AE", 0xE6: "ae", 0xD0: "D", 0xF0: "d", 0xD8: "O", 0xF8: "o", 0xDE: "TH",
        0xFE: "th", 0xDF: "ss", 0x110: "D", 0x111: "d", 0x126: "H", 0x127: "h", 0x131: "i",
        0x138: "q", 0x13F: "L", 0x140: "l", 0x141: "L", 0x142: "l", 0x149: "'n", 0x14A: "N",
        0x14B: "n", 0x152: "OE", 0x153: "oe", 0x166: "T", 0x167: "t", 0x180: "b", 0x181: "B",
        0x182: "B", 0x183: "b", 0x187: "C", 0x188: "c", 0x189: "D", 0x18A: "D", 0x18B: "D",
        0x18C: "d", 0x190: "E", 0x191: "F", 0x192: "f", 0x193: "G", 0x197: "I", 0x198: "K",
        0x199: "k", 0x19A: "l", 0x19D: "N", 0x19E: "n", 0x19F: "O", 0x1A4: "P", 0x1A5: "p",
        0x1AB: "t", 0x1AC: "T", 0x1AD: "t", 0x1AE: "T", 0x1B2: "V", 0x1B3: "Y", 0x1B4: "y",
        0x1B5: "Z", 0x1B6: "z", 0x1E4: "G", 0x1E5: "g", 0x221: "d", 0x224: "Z", 0x225: "z",
        0x234: "l", 0x235: "n", 0x236: "t", 0x237: "j", 0x238: "db", 0x239: "qp", 0x23A: "A",
        0x23B: "C", 0x23C: "c", 0x23D: "L", 0x23E: "T", 0x23F: "s", 0x240: "z", 0x243: "B",
        0x244: "U", 0x246: "E", 0x247: "e", 0x248: "J", 0x249: "j", 0x24C: "R", 0x24D: "r",
        0x24E: "Y", 0x24F: "y", 0x253: "b", 0x255: "c", 0x256: "d", 0x257: "d", 0x25B: "e",
        0x25F: "j", 0x260: "g", 0x261: "g", 0x262: "G", 0x266: "h", 0x267: "h", 0x268: "i",
        0x26A: "I", 0x26B: "l", 0x26C: "l", 0x26D: "l", 0x271: "m", 0x272: "n", 0x273: "n",
        0x274: "N", 0x276: "OE", 0x27C: "r", 0x27D: "r", 0x27E: "r", 0x280: "R", 0x282: "s",
        0x288: "t", 0x289: "u", 0x28B: "v", 0x28F: "Y", 0x290: "z", 0x291: "z", 0x299: "B",
        0x29B: "G", 0x29C: "H", 0x29D: "j", 0x29F: "L", 0x2A0: "q", 0x2A3: "dz", 0x2A5: "dz",
        0x2A6: "ts", 0x2AA: "ls", 0x2AB: "lz", 0x1D6B: "ue", 0x1E9E: "SS", 0x2C65: "a",
        0x2C66: "t", 0xA730: "F", 0xA731: "S", 0xA732: "AA", 0xA733: "aa", 0xA734: "AO",
        0xA735: "ao", 0xA736: "AU", 0xA737: "au", 0xA738: "AV", 0xA739: "av", 0xA73C: "AY",
        0xA73D: "ay", 0xA74E: "OO", 0xA74F: "oo", 0xA760: "VY", 0xA761: "vy",
    }
    for c in (0x2018, 0x2019, 0x201A, 0x201B, 0x2032, 0x2035, 0x2039, 0x203A, 0x275B, 0x275C,
              0xFF07):
        extras[c] = "'"
    for c in (0x201C, 0x201D, 0x201E, 0x201F, 0x2033, 0x2036, 0xAB, 0xBB, 0x275D, 0x275E,
              0x301D, 0x301E, 0xFF02):
        extras[c] = '"'
    for c in (0x2010, 0x2011, 0x2012, 0x2013, 0x2014, 0x2015, 0x207B, 0x208B, 0xFF0D):
        extras[c] = "-"
    extras[0x2044] = "/"

    fold = {}
    for c in range(0x80, N):
        if c in extras:
            fold[c] = extras[c]
            continue
        if c not in decomp:
            continue
        e = expand(c, c)
        if e is None:
            continue
        s = "".join(chr(x) for x in e if not (0x300 <= x <= 0x36F or gc[x] in ("Mn", "Me")))
        if s and all(ord(ch) < 0x80 for ch in s) and s != chr(c):
            fold[c] = s
    # second pass: decompositions whose parts fold through the extras
    # (fractions: U+2044 FRACTION SLASH -> "/")
    for c in range(0x80, N):
        if c in fold or c not in decomp:
            continue
        e = expand(c, c)
        if e is None:
            continue
        s = "".join(extras.get(x, chr(x)) for x in e if not (gc[x] in ("Mn", "Me")))
        if s and all(ord(ch) < 0x80 for ch in s):
            fold[c] = s

    pool = []
    pool_off = {}
    fold_rows = []
    total = 0
    for c in sorted(fold):
        s = fold[c]
        if s not in pool_off:
            pool_off[s] = total
            pool.append(s)
            total += len(s)
        fold_rows.append((c, pool_off[s], len(s)))
    assert total < 65536

    w = []
    w.append("/* Generated by src/text/gen_unicode.py from the Unicode Character Database. "
             "Do not edit. */")
    w.append('#include "text/unicode.h"')
    for i, n in enumerate(WB_C):
        w.append("_Static_assert(TV_WB_%s == %d, \"Word_Break numbering\");" % (n, i))
    for n, v in F.items():
        w.append("_Static_assert(TV_UCF_%s == %d, \"flag numbering\");" % (n, v))
    w.append("const tv_uc_record tv_uc_props_table[%d] = {" % len(rec_list))
    for r in rec_list:
        w.append("{%d,%d,%d,%d,%d}," % r)
    w.append("};")
    w.append("const uint16_t tv_uc_stage1[0x110000 >> 7] = {")
    for i in range(0, len(stage1), 32):
        w.append(",".join(str(x) for x in stage1[i:i + 32]) + ",")
    w.append("};")
    w.append("const uint16_t tv_uc_stage2[%d] = {" % (len(block_list) * 128))
    for blk in block_list:
        for i in range(0, 128, 32):
            w.append(",".join(str(x) for x in blk[i:i + 32]) + ",")
    w.append("};")
    w.append("const tv_uc_fold tv_uc_fold_table[%d] = {" % len(fold_rows))
    for row in fold_rows:
        w.append("{0x%X,%d,%d}," % row)
    w.append("};")
    w.append("const size_t tv_uc_fold_count = %d;" % len(fold_rows))
    w.append("const uint32_t tv_uc_digit_zero[%d] = {" % len(digit_zero))
    w.append(",".join("0x%X" % c for c in digit_zero))
    w.append("};")
    w.append("const size_t tv_uc_digit_zero_count = %d;" % len(digit_zero))
    pool_s = "".join(pool)
    w.append("const char tv_uc_fold_pool[%d] =" % (len(pool_s) + 1))
    for i in range(0, len(pool_s), 64):
        chunk = pool_s[i:i + 64].replace("\\", "\\\\").replace('"', '\\"')
        w.append('"%s"' % chunk)
    if not pool_s:
        w.append('""')
    w.append(";")
    tmp = out + ".tmp"
    with open(tmp, "w", encoding="ascii") as f:
        f.write("\n".join(w) + "\n")
    os.replace(tmp, out)


if __name__ == "__main__":
    main()
