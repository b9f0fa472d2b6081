#!/usr/bin/python3
"""
pgoutput_seeds.py — seeds for fuzz_sync_pgoutput: one file per message,
covering every pgoutput message kind of protocols 1 and 2 (in and out of a
streamed block), the CopyData frames (XLogData wrapping a message, primary
keepalive) and a few LSN strings, written to fuzz/corpus/sync_pgoutput/.

Input format of the target: one selector byte (bit 0: protocol 2, bit 1:
inside a streamed block), then the bytes. Files are named seed-<what>; the
fuzzer's own finds (hash names) are left alone, so re-running only rewrites
the seeds.

Usage: /usr/bin/python3 fuzz/seeds/pgoutput_seeds.py  (from anywhere)
"""
import os
import struct

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "corpus", "sync_pgoutput")


def u8(v):
    return struct.pack(">B", v)


def u16(v):
    return struct.pack(">H", v)


def u32(v):
    return struct.pack(">I", v & 0xFFFFFFFF)


def u64(v):
    return struct.pack(">Q", v & 0xFFFFFFFFFFFFFFFF)


def s(text):
    return text.encode() + b"\0"


def text(kind, value):
    return kind + u32(len(value)) + value


def tuple_(*vals):
    return u16(len(vals)) + b"".join(vals)


ROW = tuple_(text(b"t", b"42"), b"n", b"u", text(b"t", b"hello"), text(b"b", b"\x00\x01"))
KEY = tuple_(text(b"t", b"42"))


def xid(stream):
    return u32(7777) if stream else b""


def messages(stream):
    """(name, bytes) of the data messages; stream adds the protocol 2 xid."""
    x = xid(stream)
    rel = (u32(16385) + s("public") + s("items") + b"d" + u16(3)
           + u8(1) + s("id") + u32(20) + u32(-1)
           + u8(0) + s("price") + u32(1700) + u32((10 << 16 | 2) + 4)
           + u8(0) + s("body") + u32(25) + u32(-1))
    return [
        ("relation", b"R" + x + rel),
        ("relation-catalog", b"R" + x + u32(1259) + s("") + s("pg_class") + b"f" + u16(0)),
        ("type", b"Y" + x + u32(16400) + s("public") + s("mood")),
        ("insert", b"I" + x + u32(16385) + b"N" + ROW),
        ("update", b"U" + x + u32(16385) + b"N" + ROW),
        ("update-key", b"U" + x + u32(16385) + b"K" + KEY + b"N" + ROW),
        ("update-old", b"U" + x + u32(16385) + b"O" + ROW + b"N" + ROW),
        ("delete-key", b"D" + x + u32(16385) + b"K" + KEY),
        ("delete-old", b"D" + x + u32(16385) + b"O" + ROW),
        ("truncate", b"T" + x + u32(2) + u8(3) + u32(16385) + u32(16390)),
        ("message", b"M" + x + u8(1) + u64(0x16B3748) + s("trove") + u32(5) + b"a\0b\xffc"),
        ("message-empty", b"M" + x + u8(0) + u64(1) + s("") + u32(0)),
    ]


TXN = [
    ("begin", b"B" + u64(0x1000016B3748) + u64(712345678901234) + u32(745)),
    ("commit", b"C" + u8(0) + u64(0x1000016B3748) + u64(0x1000016B3790) + u64(712345678901234)),
    ("origin", b"O" + u64(0x2000) + s("pg_16389")),
]

STREAM = [
    ("stream-start-first", b"S" + u32(7777) + u8(1)),
    ("stream-start", b"S" + u32(7777) + u8(0)),
    ("stream-stop", b"E"),
    ("stream-commit", b"c" + u32(7777) + u8(0) + u64(0x3000) + u64(0x3040) + u64(712345678901235)),
    ("stream-abort", b"A" + u32(7777) + u32(7778)),
]


def frame(msg):
    return b"w" + u64(0x1000016B3700) + u64(0x1000016B3800) + u64(712345678901234) + msg


def main():
    os.makedirs(OUT, exist_ok=True)
    seeds = {}
    for name, m in TXN + messages(False):
        seeds["p1-" + name] = b"\x00" + m
    for name, m in TXN + messages(False) + STREAM:
        seeds["p2-" + name] = b"\x01" + m
    for name, m in messages(True) + STREAM:
        seeds["p2s-" + name] = b"\x03" + m
    # frames wrapping a few messages, and keepalives
    seeds["frame-begin"] = b"\x00" + frame(TXN[0][1])
    seeds["frame-insert"] = b"\x00" + frame(messages(False)[3][1])
    seeds["frame-stream-insert"] = b"\x03" + frame(messages(True)[3][1])
    seeds["frame-stream-start"] = b"\x01" + frame(STREAM[0][1])
    seeds["keepalive"] = b"\x00" + b"k" + u64(0x1000016B3800) + u64(712345678901234) + u8(0)
    seeds["keepalive-reply"] = b"\x00" + b"k" + u64(0x1000016B3800) + u64(712345678901234) + u8(1)
    # LSN text
    seeds["lsn"] = b"\x00" + b"16/B374D848"
    seeds["lsn-max"] = b"\x00" + b"FFFFFFFF/ffffffff"
    for name, data in sorted(seeds.items()):
        with open(os.path.join(OUT, "seed-" + name), "wb") as f:
            f.write(data)
    print("wrote %d seeds to %s" % (len(seeds), os.path.normpath(OUT)))


if __name__ == "__main__":
    main()
