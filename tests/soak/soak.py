#!/usr/bin/python3
"""
soak.py — a bounded soak of `trove serve`: several clients mixing every
kind of work for a fixed time, while the server's memory and descriptors
are sampled.

What runs (each client a thread with its own keep-alive session, picking
an operation at random with a fixed seed):
    _bulk of 50-200 documents, single-document index/update/delete,
    searches (match, bool, range, sort, highlight), aggregations (terms,
    date_histogram, cardinality, percentiles), scrolls (opened, read to
    the end or abandoned, cleared), clones (POST /_trove/clones, a search
    on the clone's port, DELETE), index create/delete, refresh, and
    requests meant to trip the breakers (a search over a very wide bool)
    when --heap is small.

What is checked
    - every answer is 2xx, or 404 for a document or index another client
      deleted, 409 for a version conflict between clients, 403 for a base
      another client's clone froze, 400 for an index another client
      re-created first, or 429 circuit_breaking_exception; anything else
      (a 5xx, a dropped connection, a server death) is a failure;
    - the resident set (VmRSS, sampled every second) stays under the
      --rss-limit and its slope over the second half of the run (least
      squares, MiB per minute) is reported; with --max-slope a slope above
      it fails;
    - open descriptors at the end are within a few of those at the start
      (no leak).
    Output: one summary line per metric, then `N passed, N failed`
    (operations). Exit status 0 when nothing failed.

Run
    /usr/bin/python3 tests/soak/soak.py --duration 20           (make test's short form)
    /usr/bin/python3 tests/soak/soak.py --duration 3600 --clients 6  (by hand, one hour)
"""
import argparse
import json
import os
import random
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[2]
WORDS = ("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa "
         "quebec romeo sierra tango uniform victor whiskey xray yankee zulu").split()
OK_STATUS = {200, 201}


def start_server(binary, heap):
    args = [binary, "serve", "--host", "127.0.0.1", "--port", "0", "--threads", "2"]
    if heap:
        args += ["--heap", heap]
    p = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    log = b""
    deadline = time.monotonic() + 15
    while b"listening on " not in log:
        if time.monotonic() > deadline or p.poll() is not None:
            p.kill()
            raise SystemExit(f"soak: trove serve did not start: {log!r}")
        log += os.read(p.stderr.fileno(), 4096)
    url = log.split(b"listening on ", 1)[1].split(b"\n", 1)[0].decode().strip()
    # keep draining stderr so the server never blocks on a full pipe
    threading.Thread(target=lambda: [None for _ in iter(lambda: p.stderr.read(4096), b"")], daemon=True).start()
    return p, url


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def fds(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def slope_mib_per_min(samples):
    """Least-squares slope of (seconds, KiB) samples, in MiB per minute."""
    if len(samples) < 3:
        return 0.0
    n = len(samples)
    mx = sum(t for t, _ in samples) / n
    my = sum(v for _, v in samples) / n
    var = sum((t - mx) ** 2 for t, _ in samples)
    if var == 0:
        return 0.0
    cov = sum((t - mx) * (v - my) for t, v in samples)
    return cov / var * 60 / 1024


class Client(threading.Thread):
    def __init__(self, url, seed, deadline, stats, lock):
        super().__init__(daemon=True)
        self.url, self.rng, self.deadline = url, random.Random(seed), deadline
        self.stats, self.lock = stats, lock
        self.s = requests.Session()
        self.s.headers["Content-Type"] = "application/json"
        self.index = f"soak-{seed % 3}"

    def text(self, n):
        return " ".join(self.rng.choice(WORDS) for _ in range(n))

    def doc(self):
        return {"title": self.text(self.rng.randint(2, 8)), "body": self.text(self.rng.randint(10, 60)),
                "tag": self.rng.choice(WORDS), "n": self.rng.randint(0, 10000),
                "date": f"2024-{self.rng.randint(1, 12):02d}-{self.rng.randint(1, 28):02d}"}

    def record(self, op, status, body=b""):
        allowed = status in OK_STATUS or status in (404, 409)
        if status == 429:
            allowed = b"circuit_breaking_exception" in body
        # races between clients that OpenSearch (or trove's fixture mode)
        # answers the same way: a base frozen by another client's clone
        # until it unfreezes it, an index another client re-created first
        if status == 403:
            allowed = b"trove_base_frozen" in body
        if status == 400:
            allowed = b"resource_already_exists_exception" in body
        with self.lock:
            self.stats["ops"] += 1
            self.stats["by_status"][status] = self.stats["by_status"].get(status, 0) + 1
            if not allowed:
                self.stats["failures"].append(f"{op}: {status} {body[:200]!r}")

    def call(self, op, method, path, body=None, base=None):
        data = body if isinstance(body, (bytes, type(None))) else json.dumps(body)
        try:
            r = self.s.request(method, (base or self.url) + path, data=data, timeout=30)
        except requests.RequestException as e:
            with self.lock:
                self.stats["ops"] += 1
                self.stats["failures"].append(f"{op}: {type(e).__name__}")
            return None
        self.record(op, r.status_code, r.content)
        return r

    def run(self):
        ops = [self.bulk] * 3 + [self.index_one, self.update_one, self.delete_one] + [self.search] * 4 + \
              [self.aggs] * 2 + [self.scroll, self.clone, self.recreate, self.refresh, self.wide]
        while time.monotonic() < self.deadline and not self.stats["dead"]:
            self.rng.choice(ops)()

    def bulk(self):
        lines = []
        for _ in range(self.rng.randint(50, 200)):
            lines.append(json.dumps({"index": {"_index": self.index, "_id": str(self.rng.randint(0, 5000))}}))
            lines.append(json.dumps(self.doc()))
        self.call("bulk", "POST", "/_bulk", ("\n".join(lines) + "\n").encode())

    def index_one(self):
        self.call("index", "PUT", f"/{self.index}/_doc/{self.rng.randint(0, 5000)}", self.doc())

    def update_one(self):
        self.call("update", "POST", f"/{self.index}/_update/{self.rng.randint(0, 5000)}",
                  {"doc": {"n": self.rng.randint(0, 10)}, "doc_as_upsert": True})

    def delete_one(self):
        self.call("delete", "DELETE", f"/{self.index}/_doc/{self.rng.randint(0, 5000)}")

    def search(self):
        q = self.rng.choice([
            {"query": {"match": {"body": self.text(2)}}, "highlight": {"fields": {"body": {}}}},
            {"query": {"bool": {"must": [{"match": {"title": self.rng.choice(WORDS)}}],
                                "filter": [{"range": {"n": {"gte": self.rng.randint(0, 5000)}}}]}}},
            {"query": {"match_all": {}}, "sort": [{"n": "desc"}], "size": 20},
            {"query": {"prefix": {"tag": self.rng.choice(WORDS)[:2]}}},
        ])
        self.call("search", "POST", f"/{self.index}/_search", q)

    def aggs(self):
        self.call("aggs", "POST", f"/{self.index}/_search", {"size": 0, "aggs": {
            "t": {"terms": {"field": "tag", "size": 30}, "aggs": {"c": {"cardinality": {"field": "n"}}}},
            "h": {"date_histogram": {"field": "date", "calendar_interval": "month"}},
            "p": {"percentiles": {"field": "n"}}}})

    def scroll(self):
        r = self.call("scroll", "POST", f"/{self.index}/_search?scroll=30s", {"size": 50})
        if r is None or r.status_code != 200:
            return
        sid = r.json().get("_scroll_id")
        for _ in range(self.rng.randint(0, 4)):
            r = self.call("scroll", "POST", "/_search/scroll", {"scroll": "30s", "scroll_id": sid})
            if r is None or r.status_code != 200 or not r.json()["hits"]["hits"]:
                break
            sid = r.json().get("_scroll_id", sid)
        if self.rng.random() < 0.8:  # some are left to expire
            self.call("scroll", "DELETE", "/_search/scroll", {"scroll_id": sid})

    def clone(self):
        r = self.call("clone", "POST", "/_trove/clones")
        if r is None or r.status_code not in OK_STATUS:
            return
        c = r.json()
        self.call("clone", "POST", "/_trove/base/unfreeze")
        self.call("clone", "POST", f"/{self.index}/_search", {"query": {"match_all": {}}}, base=c["url"])
        self.call("clone", "PUT", f"/{self.index}/_doc/clone-only", self.doc(), base=c["url"])
        self.call("clone", "DELETE", f"/_trove/clones/{c['id']}")

    def recreate(self):
        name = f"soak-tmp-{self.rng.randint(0, 3)}"
        self.call("recreate", "DELETE", f"/{name}")
        self.call("recreate", "PUT", f"/{name}", {"mappings": {"properties": {"tag": {"type": "keyword"}}}})

    def refresh(self):
        self.call("refresh", "POST", f"/{self.index}/_refresh")

    def wide(self):
        n = self.rng.randint(200, 1000)
        self.call("wide", "POST", f"/{self.index}/_search",
                  {"query": {"bool": {"should": [{"term": {"tag": f"w{i}"}} for i in range(n)]}}})


def main(argv=None):
    ap = argparse.ArgumentParser(description="bounded soak of trove serve")
    ap.add_argument("--duration", type=float, default=20, help="seconds of load (default 20)")
    ap.add_argument("--clients", type=int, default=4)
    ap.add_argument("--heap", default="256mb", help="trove serve --heap (the breakers' budget)")
    ap.add_argument("--rss-limit", type=float, default=512, help="MiB the resident set must stay under")
    ap.add_argument("--max-slope", type=float, default=None, help="fail above this many MiB/min (second half)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    binary = os.environ.get("TROVE_BIN", str(ROOT / "build" / "trove"))
    proc, url = start_server(binary, args.heap)
    s = requests.Session()
    for i in range(3):
        s.put(f"{url}/soak-{i}", json={"settings": {"refresh_interval": "200ms"}, "mappings": {"properties": {
            "title": {"type": "text"}, "body": {"type": "text"}, "tag": {"type": "keyword"},
            "n": {"type": "long"}, "date": {"type": "date"}}}})
    time.sleep(0.2)
    fd0, rss0 = fds(proc.pid), rss_kib(proc.pid)
    stats = {"ops": 0, "by_status": {}, "failures": [], "dead": False}
    lock = threading.Lock()
    t0 = time.monotonic()
    deadline = t0 + args.duration
    clients = [Client(url, args.seed * 100 + i, deadline, stats, lock) for i in range(args.clients)]
    for c in clients:
        c.start()
    samples, peak = [], rss0
    while any(c.is_alive() for c in clients):
        time.sleep(1)
        if proc.poll() is not None:
            stats["failures"].append(f"server died with {proc.returncode}")
            stats["dead"] = True  # the clients stop
            break
        kib = rss_kib(proc.pid)
        peak = max(peak, kib)
        samples.append((time.monotonic() - t0, kib))
    for c in clients:
        c.join(35)
    alive = proc.poll() is None
    rss1 = rss_kib(proc.pid) if alive else 0
    time.sleep(2.5)  # idle connections and lingering closes settle
    fd1 = fds(proc.pid) if alive else 0
    for c in clients:
        c.s.close()
    s.close()
    time.sleep(0.5)
    fd2 = fds(proc.pid) if alive else 0
    for _ in range(20):  # closes and clone listeners are reaped within a few seconds
        if not alive or fd2 <= fd0 + 2:
            break
        time.sleep(0.5)
        fd2 = fds(proc.pid)
    if alive and os.environ.get("SOAK_DEBUG"):
        print(subprocess.run(["ss", "-tanp"], capture_output=True, text=True).stdout[-3000:])
    proc.terminate()
    try:
        rc = proc.wait(20)
    except subprocess.TimeoutExpired:
        proc.kill()
        rc = "hung on SIGTERM"
    half = [x for x in samples if x[0] >= args.duration / 2]
    slope = slope_mib_per_min(half)
    ops_s = stats["ops"] / max(args.duration, 1)
    print(f"soak: {args.duration:.0f}s, {args.clients} clients, {stats['ops']} operations ({ops_s:.0f}/s), "
          f"statuses {dict(sorted(stats['by_status'].items()))}")
    print(f"soak: RSS start {rss0 / 1024:.1f} MiB, end {rss1 / 1024:.1f} MiB, peak {peak / 1024:.1f} MiB, "
          f"slope (second half) {slope:+.2f} MiB/min")
    print(f"soak: descriptors start {fd0}, after the run {fd1}, clients closed {fd2}; exit {rc}")
    fails = list(stats["failures"])
    if peak / 1024 > args.rss_limit:
        fails.append(f"peak RSS {peak / 1024:.1f} MiB over --rss-limit {args.rss_limit}")
    if args.max_slope is not None and slope > args.max_slope:
        fails.append(f"RSS slope {slope:+.2f} MiB/min over --max-slope {args.max_slope}")
    if alive and fd2 > fd0 + 2:
        fails.append(f"descriptors grew from {fd0} to {fd2}")
    if rc != 0:
        fails.append(f"server exit status {rc}")
    for f in fails[:30]:
        print("FAIL " + f)
    print(f"{stats['ops'] - len(stats['failures'])} passed, {len(fails)} failed")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
