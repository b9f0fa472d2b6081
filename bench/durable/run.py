#!/usr/bin/python3
"""What durability costs: trove serve in memory against trove serve --data DIR,
side by side on the same machine. A benchmark, never a test.

    bench/durable/run.py [--bin build/trove] [--docs 100000] [--batch 1000]
                         [--singles 2000] [--rounds 3] [--dir /var/tmp]

For each round and each mode (memory, disk), a fresh server:
  bulk      --docs documents (bench/corpus-like text, ~600 bytes each) in
            _bulk requests of --batch, one connection, back to back: docs/s;
  singles   --singles PUT /idx/_doc/ID of one small document each, one
            connection, sequential: per-request wall latency p50/p90/p99
            (with `request` durability every one waits for its fdatasync);
  restart   (disk only) the server is killed (SIGKILL) and started again on
            the same directory: seconds from exec to "listening", which is
            the translog replay of everything above, and the RSS then; then
            POST _flush (a commit: its seconds), kill, start again: the open
            of the commit (segments mapped), and the RSS then.
Prints medians over rounds and the disk/memory ratios. The data directory
goes under --dir (default /var/tmp: a real disk, not a tmpfs).
"""
import argparse
import http.client
import json
import os
import random
import select
import shutil
import signal
import statistics
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WORDS = ("search engine index document query term phrase score segment posting block skip "
         "translog commit merge refresh shard replica mapping field text keyword number date "
         "the of and to in is it that for on with as by at from this be are or was").split()


def start(binary, data=None):
    args = [binary, "serve", "--host", "127.0.0.1", "--port", "0"]
    if data:
        args += ["--data", data]
    t0 = time.monotonic()
    p = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    log = b""
    while b"listening on " not in log:
        r, _, _ = select.select([p.stderr], [], [], 600)
        if not r or p.poll() is not None:
            raise RuntimeError("server did not start: %r" % log)
        log += os.read(p.stderr.fileno(), 4096)
    ready = time.monotonic() - t0
    url = log.split(b"listening on ", 1)[1].split(b"\n", 1)[0].decode().strip()
    host, port = url[len("http://"):].rsplit(":", 1)
    return p, host, int(port), ready


def rss_mib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def call(conn, method, path, body, ctype="application/json"):
    conn.request(method, path, body=body, headers={"content-type": ctype})
    r = conn.getresponse()
    data = r.read()
    if r.status >= 300:
        raise RuntimeError("%s %s: %d %s" % (method, path, r.status, data[:300]))
    return data


def doc(rng, i):
    return {"title": " ".join(rng.choice(WORDS) for _ in range(6)),
            "body": " ".join(rng.choice(WORDS) for _ in range(90)), "n": i}


def crash_restart(p, binary, data, a):
    """SIGKILL, start again on data: the new process, a connection to it,
    seconds to ready and RSS then; every document must be back."""
    p.send_signal(signal.SIGKILL)
    p.wait()
    p, host, port, ready = start(binary, data)
    rss = rss_mib(p.pid)
    conn = http.client.HTTPConnection(host, port, timeout=600)
    n = json.loads(call(conn, "GET", "/b/_count", None))["count"]
    assert n == a.docs + a.singles, n
    return p, conn, ready, rss


def one_round(binary, mode, a, base):
    data = tempfile.mkdtemp(prefix="trove-durable-bench-", dir=base) if mode == "disk" else None
    p, host, port, _ = start(binary, data)
    out = {}
    try:
        conn = http.client.HTTPConnection(host, port, timeout=600)
        call(conn, "PUT", "/b", json.dumps({"settings": {"number_of_replicas": 0},
                                            "mappings": {"properties": {"title": {"type": "text"},
                                                                        "body": {"type": "text"},
                                                                        "n": {"type": "long"}}}}))
        rng = random.Random(42)
        bodies = []
        for s in range(0, a.docs, a.batch):
            lines = []
            for i in range(s, min(a.docs, s + a.batch)):
                lines.append('{"index":{"_id":"%d"}}' % i)
                lines.append(json.dumps(doc(rng, i)))
            bodies.append("\n".join(lines) + "\n")
        t0 = time.monotonic()
        for b in bodies:
            call(conn, "POST", "/b/_bulk", b, "application/x-ndjson")
        out["bulk_docs_per_s"] = a.docs / (time.monotonic() - t0)
        lat = []
        for i in range(a.singles):
            body = json.dumps({"title": "single %d" % i, "n": i})
            t = time.perf_counter()
            call(conn, "PUT", "/b/_doc/s%d" % i, body)
            lat.append((time.perf_counter() - t) * 1e6)
        lat.sort()
        out["put_p50_us"] = lat[len(lat) // 2]
        out["put_p90_us"] = lat[int(len(lat) * 0.9)]
        out["put_p99_us"] = lat[int(len(lat) * 0.99)]
        conn.close()
        if data:
            out["translog_mib"] = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(data)
                                      for f in fs) / 2**20
            p, conn, out["restart_s"], out["rss_after_restart_mib"] = crash_restart(p, binary, data, a)
            t0 = time.monotonic()
            call(conn, "POST", "/b/_flush", None)
            out["flush_s"] = time.monotonic() - t0
            conn.close()
            p, conn, out["restart_after_flush_s"], out["rss_after_flush_restart_mib"] = crash_restart(p, binary, data, a)
            conn.close()
    finally:
        p.send_signal(signal.SIGKILL)
        p.wait()
        if data:
            shutil.rmtree(data, ignore_errors=True)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=os.path.join(ROOT, "build-bench", "trove"))
    ap.add_argument("--docs", type=int, default=100000)
    ap.add_argument("--batch", type=int, default=1000)
    ap.add_argument("--singles", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--dir", default="/var/tmp")
    a = ap.parse_args()
    res = {"memory": [], "disk": []}
    for r in range(a.rounds):
        for mode in (("memory", "disk") if r % 2 == 0 else ("disk", "memory")):
            res[mode].append(one_round(a.bin, mode, a, a.dir))
            print("round %d %s: %s" % (r, mode, json.dumps({k: round(v, 1) for k, v in res[mode][-1].items()})),
                  flush=True)
    med = {m: {k: statistics.median(x[k] for x in rs) for k in rs[0]} for m, rs in res.items()}
    print("\nmedians over %d rounds (%d docs in bulks of %d, %d single PUTs):" % (a.rounds, a.docs, a.batch, a.singles))
    for k in med["memory"]:
        print("  %-22s memory %10.1f  disk %10.1f  disk/memory %.2f" % (k, med["memory"][k], med["disk"][k],
                                                                      med["disk"][k] / med["memory"][k]))
    for k in ("translog_mib", "restart_s", "rss_after_restart_mib", "flush_s", "restart_after_flush_s",
              "rss_after_flush_restart_mib"):
        print("  %-27s disk %10.4f" % (k, med["disk"][k]))


if __name__ == "__main__":
    main()
