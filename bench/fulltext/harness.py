#!/usr/bin/python3
"""harness.py — runs the full-text benchmark's peers side by side and writes summary.json.

    harness.py --docs DOCS.ndjson --queries QUERIES.tsv --out DIR --work DIR
               --engine NAME=COMMAND [--engine NAME=COMMAND ...] [--passes 3] [--modes ...]

Each --engine is a peer (bench/fulltext/README.md has the protocol): COMMAND is run with
INDEX_DIR and DOCS appended. The harness:

1. starts every peer in turn and waits for its READY line (each builds its own index; the
   READY line gives index_seconds and index_bytes);
2. makes --warmup untimed passes (default 1) over every (query, mode) on every engine; the
   first checks each answer and records the counts (a peer's JIT, caches and page faults warm
   up here too);
3. makes --passes timed passes; within a pass the engines take turns query by query, so that
   drift of the machine (other load, frequency) lands on all of them alike, and which engine
   goes first alternates between passes (the second to run a query finds the CPU's caches
   warmer: an A/A run of one engine against itself showed 1.6x on microsecond queries);
4. reads each peer's peak RSS while serving (VmHWM, reset through /proc/PID/clear_refs at
   READY; the indexing peak and the RSS at READY are kept apart), then closes its stdin;
5. per query, takes the median over passes of the time the peer measured (wall and thread CPU,
   the protocol's I/O excluded); per cell (class, mode), the median over its queries; per
   engine, the geometric mean over the cells of Lucene's cell median divided by the engine's,
   over the cells both support (so > 1 is faster than Lucene);
6. compares every count with Lucene's: COUNT answers must be equal, TOP_N answers must be
   min(N, Lucene's COUNT); every disagreement is listed with both numbers.

Query files: CLASS<TAB>QUERY lines (cells are class x mode, for every --modes), or
MODE<TAB>QUERY lines (an external query file: cells are the modes). Lines starting with '#'
are comments.

Output: DIR/summary.json, with at least
  {"engines": {NAME: {"geomean_speedup_vs_lucene", "count_agreement", "index_bytes",
                      "index_seconds", "peak_rss_bytes", ...}},
   "cells": [{"cell", "engine", "median_us", "cpu_us", "queries", "unsupported"}], ...}
and DIR/summary.md, the same as Markdown tables.

Rejected: timing on the harness side (a Python round trip adds tens of microseconds to queries
that take a few); one engine after the other (a load spike would then favour whoever ran in a
quiet minute).
"""
import argparse
import json
import math
import os
import shlex
import statistics
import subprocess
import sys
import time

MODES = ("TOP_10", "TOP_100", "COUNT")


class Peer:
    def __init__(self, name, command, index_dir, docs, ready_timeout):
        self.name = name
        os.makedirs(index_dir, exist_ok=True)
        argv = shlex.split(command) + [index_dir, docs]
        self.err = open(os.path.join(os.path.dirname(index_dir), f"{name}.stderr"), "wb")
        t0 = time.monotonic()
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.err,
                                     text=True, encoding="utf-8", bufsize=1)
        self.ready = None
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise SystemExit(f"harness: {name} exited before READY (see {self.err.name})")
            if line.startswith("READY\t"):
                self.ready = json.loads(line.split("\t", 1)[1])
                break
            if time.monotonic() - t0 > ready_timeout:
                raise SystemExit(f"harness: {name} not ready after {ready_timeout} s")
            print(f"harness: {name}: ignoring {line.rstrip()!r}", file=sys.stderr)
        self.ready["wall_to_ready_seconds"] = round(time.monotonic() - t0, 3)
        # the indexing peak, then a fresh peak for serving (writing 5 to clear_refs resets VmHWM)
        self.ready["index_peak_rss_bytes"] = self.status_bytes("VmHWM")
        self.ready["rss_at_ready_bytes"] = self.status_bytes("VmRSS")
        try:
            with open(f"/proc/{self.proc.pid}/clear_refs", "w") as f:
                f.write("5")
            self.hwm_reset = True
        except OSError:
            self.hwm_reset = False

    def ask(self, mode, query):
        self.proc.stdin.write(f"{mode}\t{query}\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise SystemExit(f"harness: {self.name} died on {mode} {query!r} (see {self.err.name})")
        parts = line.rstrip("\n").split("\t")
        if parts[0] == "OK" and len(parts) == 4:
            return ("OK", int(parts[1]), int(parts[2]), int(parts[3]))
        if parts[0] == "UNSUPPORTED":
            return ("UNSUPPORTED", parts[1] if len(parts) > 1 else "", 0, 0)
        return ("ERROR", "\t".join(parts[1:]) or line.strip(), 0, 0)

    def status_bytes(self, key):
        try:
            with open(f"/proc/{self.proc.pid}/status") as f:
                for l in f:
                    if l.startswith(key + ":"):
                        return int(l.split()[1]) * 1024
        except OSError:
            pass
        return None

    def peak_rss(self):
        """Peak RSS while serving (since READY), when the kernel let us reset it."""
        return self.status_bytes("VmHWM") if self.hwm_reset else None

    def close(self):
        try:
            self.proc.stdin.close()
            self.proc.wait(timeout=60)
        except Exception:
            self.proc.kill()
        self.err.close()


def read_queries(path, modes):
    """[(cell, mode, query)]: one entry per (query, mode)."""
    items = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            head, _, q = line.partition("\t")
            if not q:
                raise SystemExit(f"harness: bad query line {line!r}")
            if head in MODES:  # an external file: MODE<TAB>QUERY
                items.append((head, head, q))
            else:
                for m in modes:
                    items.append((f"{head}/{m}", m, q))
    return items


def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--docs", required=True)
    ap.add_argument("--queries", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--engine", action="append", required=True, help="NAME=COMMAND")
    ap.add_argument("--passes", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=1, help="untimed passes before timing (the first checks)")
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--baseline", default="lucene")
    ap.add_argument("--ready-timeout", type=float, default=6 * 3600)
    a = ap.parse_args()
    modes = [m for m in a.modes.split(",") if m]
    items = read_queries(a.queries, modes)
    os.makedirs(a.out, exist_ok=True)

    peers = []
    for spec in a.engine:
        name, _, cmd = spec.partition("=")
        print(f"harness: indexing with {name} ...", file=sys.stderr)
        p = Peer(name, cmd, os.path.join(a.work, f"index-{name}"), a.docs, a.ready_timeout)
        print(f"harness: {name} ready: {json.dumps(p.ready)}", file=sys.stderr)
        peers.append(p)

    # untimed passes: the first checks and records every answer; more only warm up (a JVM's
    # JIT compiles the hot paths after some thousands of calls)
    answers = {p.name: [] for p in peers}
    for w in range(max(1, a.warmup)):
        for p in peers:
            for cell, mode, q in items:
                r = p.ask(mode, q)
                if w == 0:
                    answers[p.name].append(r)
    # timed passes, engines interleaved query by query
    times = {p.name: [[] for _ in items] for p in peers}
    for pass_no in range(a.passes):
        order = peers if pass_no % 2 == 0 else peers[::-1]  # who goes first alternates
        for i, (cell, mode, q) in enumerate(items):
            for p in order:
                r = p.ask(mode, q)
                if r[0] == "OK":
                    times[p.name][i].append((r[3], r[2]))
        print(f"harness: pass {pass_no + 1}/{a.passes} done", file=sys.stderr)
    rss = {p.name: p.peak_rss() for p in peers}
    for p in peers:
        p.close()

    base = a.baseline if a.baseline in answers else None
    # counts: Lucene's COUNT per query text, to check TOP_N answers too
    base_count = {}
    if base:
        for (cell, mode, q), r in zip(items, answers[base]):
            if mode == "COUNT" and r[0] == "OK":
                base_count[q] = r[1]

    cells = {}
    for i, (cell, mode, q) in enumerate(items):
        cells.setdefault(cell, []).append(i)

    summary = {"docs": a.docs, "queries": a.queries, "passes": a.passes, "machine": machine(),
               "engines": {}, "cells": [], "disagreements": [], "errors": []}
    cell_median = {}
    for p in peers:
        n = p.name
        agree = total = 0
        for (cell, mode, q), r in zip(items, answers[n]):
            if r[0] == "ERROR":
                summary["errors"].append({"engine": n, "cell": cell, "query": q, "error": r[1]})
            if not base or r[0] != "OK" or q not in base_count:
                continue
            want = base_count[q] if mode == "COUNT" else min(int(mode.split("_")[1]), base_count[q])
            total += 1
            if r[1] == want:
                agree += 1
            elif n != base:
                summary["disagreements"].append({"engine": n, "cell": cell, "query": q, "hits": r[1],
                                                 "lucene": want})
        for cell, idx in cells.items():
            per_q = [statistics.median(t[0] for t in times[n][i]) for i in idx if times[n][i]]
            per_q_cpu = [statistics.median(t[1] for t in times[n][i]) for i in idx if times[n][i]]
            unsupported = sum(1 for i in idx if answers[n][i][0] == "UNSUPPORTED")
            med = statistics.median(per_q) / 1000 if per_q else None
            cell_median[(n, cell)] = med if unsupported == 0 else None
            summary["cells"].append({"cell": cell, "engine": n, "median_us": round(med, 2) if med else None,
                                     "cpu_us": round(statistics.median(per_q_cpu) / 1000, 2) if per_q_cpu else None,
                                     "queries": len(idx), "unsupported": unsupported > 0,
                                     "unsupported_queries": unsupported})
        e = dict(p.ready)
        e["peak_rss_bytes"] = rss[n]
        e["count_agreement"] = round(agree / total, 4) if total else None
        e["counts_compared"] = total
        summary["engines"][n] = e
    if base:
        for p in peers:
            ratios = []
            slower = []
            for cell in cells:
                b, m = cell_median.get((base, cell)), cell_median.get((p.name, cell))
                if b and m:
                    ratios.append(b / m)
                    if b / m < 1:
                        slower.append(cell)
            g = geomean(ratios)
            summary["engines"][p.name]["geomean_speedup_vs_lucene"] = round(g, 3) if g else None
            summary["engines"][p.name]["cells_compared"] = len(ratios)
            summary["engines"][p.name]["cells_slower_than_lucene"] = slower
            for c in summary["cells"]:
                if c["engine"] == p.name:
                    b, m = cell_median.get((base, c["cell"])), cell_median.get((p.name, c["cell"]))
                    c["speedup_vs_lucene"] = round(b / m, 3) if b and m else None

    with open(os.path.join(a.out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    with open(os.path.join(a.out, "summary.md"), "w") as f:
        f.write(markdown(summary, [p.name for p in peers], list(cells)))
    print(markdown(summary, [p.name for p in peers], list(cells)))
    if summary["errors"]:
        print(f"harness: {len(summary['errors'])} queries answered ERROR (see summary.json)", file=sys.stderr)
        return 1
    return 0


def machine():
    cores = os.cpu_count()
    model = ""
    try:
        with open("/proc/cpuinfo") as f:
            for l in f:
                if l.startswith("model name"):
                    model = l.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    with open("/proc/loadavg") as f:
        load = " ".join(f.read().split()[:3])
    return {"cores": cores, "cpu": model, "loadavg_at_end": load}


def markdown(s, engines, cells):
    out = ["| engine | geomean speedup vs Lucene | cells compared | slower cells | count agreement | "
           "index bytes | index s | peak RSS MiB |", "|---|---|---|---|---|---|---|---|"]
    for n in engines:
        e = s["engines"][n]
        rss = e.get("peak_rss_bytes")
        out.append(f"| {n} | {e.get('geomean_speedup_vs_lucene')} | {e.get('cells_compared')} | "
                   f"{len(e.get('cells_slower_than_lucene') or [])} | {e.get('count_agreement')} | "
                   f"{e.get('index_bytes')} | {e.get('index_seconds')} | "
                   f"{round(rss / 2**20, 1) if rss else ''} |")
    out.append("")
    out.append("| cell | " + " | ".join(f"{n} µs" for n in engines) + " |")
    out.append("|---|" + "---|" * len(engines))
    by = {(c["engine"], c["cell"]): c for c in s["cells"]}
    for cell in cells:
        row = []
        for n in engines:
            c = by.get((n, cell))
            if not c or c["unsupported"]:
                row.append("unsupported" if c and c["unsupported"] else "")
            else:
                row.append(f"{c['median_us']}")
        out.append(f"| {cell} | " + " | ".join(row) + " |")
    if s["disagreements"]:
        out.append("")
        out.append(f"{len(s['disagreements'])} count disagreements with Lucene (first 20):")
        for d in s["disagreements"][:20]:
            out.append(f"- {d['engine']} {d['cell']} `{d['query']}`: {d['hits']} vs Lucene {d['lucene']}")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.exit(main())
