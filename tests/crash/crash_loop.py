#!/usr/bin/python3
"""Crash torture for `trove serve --data DIR`: acknowledged means on disk.

Each trial starts the server on the same data directory (so every trial also
recovers everything earlier trials wrote), runs several client threads that
index, update, delete and bulk documents (and now and then _flush, a commit)
while recording what each response acknowledged, kills the server with SIGKILL at a random moment, restarts it
and checks every document against the record:

  - a document whose last acknowledged operation is known must be exactly
    what that operation left (source, _version, _seq_no), or what one of the
    operations sent after it without an answer left (those may or may not
    have happened; nothing else may: no lost write, no half-applied one);
  - _count agrees with the documents found;
  - `trove check` finds the directory clean.

Clients own disjoint ids, so the expected state of an id is well defined.
Some trials run with an injected fault (TROVE_TEST_FAULT: the Nth write, fsync
or rename of the store fails): the writes it refuses answer 500 and count as
unacknowledged, and everything acknowledged must still be there after the
kill. The loop is bounded (trials, and a deadline per trial) and stops by
itself. Long form: crash_loop.py --trials 500.

    crash_loop.py [--trials 20] [--seed 1] [--clients 3] [--keys 40]
                  [--fault-every 4] [--bin build/trove] [--keep]
"""
import argparse
import json
import os
import pathlib
import random
import select
import shutil
import subprocess
import sys
import tempfile
import threading
import time

import requests

ROOT = pathlib.Path(__file__).resolve().parents[2]
INDEX = "crash"
MISSING = None  # the state of an id with no document


class Server:
    def __init__(self, binary, data, fault=None):
        env = dict(os.environ)
        env.pop("TROVE_TEST_FAULT", None)
        if fault:
            env["TROVE_TEST_FAULT"] = fault
        self.proc = subprocess.Popen(
            [binary, "serve", "--host", "127.0.0.1", "--port", "0", "--data", data],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        log = b""
        deadline = time.monotonic() + 30
        while b"listening on " not in log:
            left = deadline - time.monotonic()
            if left <= 0 or self.proc.poll() is not None:
                self.proc.kill()
                raise RuntimeError("trove serve did not start: %r" % log)
            r, _, _ = select.select([self.proc.stderr], [], [], left)
            if r:
                chunk = os.read(self.proc.stderr.fileno(), 4096)
                log += chunk
        self.log = log
        line = log.split(b"listening on ", 1)[1].split(b"\n", 1)[0]
        self.url = line.decode().strip()

    def kill(self):
        self.proc.kill()
        self.proc.wait()
        # what it said on the way (recovery messages) is worth keeping
        try:
            self.log += self.proc.stderr.read()
        except (OSError, ValueError):
            pass
        self.proc.stderr.close()


class Key:
    """What the record says about one id: the state the last acknowledged
    operation left (with its version and seq_no), and the states operations
    sent later without an answer may have left."""

    def __init__(self):
        self.state = MISSING
        self.version = None
        self.seq_no = None
        self.maybe = []  # [(state, version or None, seq_no or None)]

    def ack(self, state, version, seq_no):
        self.state, self.version, self.seq_no = state, version, seq_no
        self.maybe = []


class Refused(Exception):
    pass


class Client(threading.Thread):
    def __init__(self, cid, url, keys, rng, stop, ops):
        super().__init__(daemon=True)
        self.cid, self.url, self.keys, self.rng, self.stop, self.ops = cid, url, keys, rng, stop, ops
        self.session = requests.Session()
        self.errors = []

    def id(self, k):
        return "c%d-%d" % (self.cid, k)

    def body(self, k, op):
        return {"c": self.cid, "k": k, "op": op, "text": "client %d key %d op %d" % (self.cid, k, op)}

    def call(self, method, path, payload=None, ndjson=None):
        headers = {"content-type": "application/x-ndjson" if ndjson else "application/json"}
        data = ndjson if ndjson else (json.dumps(payload) if payload is not None else None)
        r = self.session.request(method, self.url + path, data=data, headers=headers, timeout=10)
        if r.status_code == 500:
            # a refused write (injected fault): it stays "maybe", and this
            # client stops, since its next update could not know its base
            raise Refused()
        return r.status_code, r.json() if r.content else {}

    def run(self):
        while not self.stop.is_set():
            self.ops[0] += 1
            op = self.ops[0]
            kind = self.rng.choice(["index", "index", "update", "delete", "bulk"] * 6 + ["flush"])
            try:
                if kind == "flush":  # a commit: segment files, a manifest, a new translog
                    self.call("POST", "/%s/_flush" % INDEX)
                elif kind == "bulk":
                    self.bulk(op)
                else:
                    self.single(kind, op)
            except (requests.ConnectionError, requests.Timeout, Refused):
                return  # the server is gone or refused: what was in flight stays "maybe"
            except Exception as e:  # noqa: BLE001 - report, do not hide
                self.errors.append(repr(e))
                return

    def single(self, kind, op):
        k = self.rng.randrange(len(self.keys))
        key, i = self.keys[k], self.id(k)
        if kind == "index":
            new = self.body(k, op)
            key.maybe.append((new, None, None))
            st, r = self.call("PUT", "/%s/_doc/%s" % (INDEX, i), new)
            if st in (200, 201):
                key.ack(new, r["_version"], r["_seq_no"])
            else:
                self.errors.append("PUT %s: %d %r" % (i, st, r))
        elif kind == "update":
            cur = key.state  # the acknowledged one: a client stops after any unanswered write
            new = dict(cur, op=op, u=op) if cur is not MISSING else MISSING
            if new is not MISSING:
                key.maybe.append((new, None, None))
            st, r = self.call("POST", "/%s/_update/%s" % (INDEX, i), {"doc": {"op": op, "u": op}})
            if st == 200 and r.get("result") in ("updated", "noop"):
                if cur is MISSING:
                    self.errors.append("update of a missing %s succeeded: %r" % (i, r))
                else:
                    key.ack(new, r["_version"], r["_seq_no"])
            elif st == 404:
                if cur is not MISSING and not key.maybe[:-1]:
                    self.errors.append("update of %s (acknowledged present) said 404: %r" % (i, r))
                if new is not MISSING:
                    key.maybe.pop()
            else:
                self.errors.append("update %s: %d %r" % (i, st, r))
        else:
            key.maybe.append((MISSING, None, None))
            st, r = self.call("DELETE", "/%s/_doc/%s" % (INDEX, i))
            if st in (200, 404):
                key.ack(MISSING, None, None)
            else:
                self.errors.append("DELETE %s: %d %r" % (i, st, r))

    def bulk(self, op):
        ks = self.rng.sample(range(len(self.keys)), 3)
        lines, plan = [], []
        for n, k in enumerate(ks):
            i = self.id(k)
            if self.rng.random() < 0.75:
                new = self.body(k, op * 10 + n)
                lines += [json.dumps({"index": {"_index": INDEX, "_id": i}}), json.dumps(new)]
            else:
                new = MISSING
                lines.append(json.dumps({"delete": {"_index": INDEX, "_id": i}}))
            self.keys[k].maybe.append((new, None, None))
            plan.append((k, new))
        st, r = self.call("POST", "/_bulk", ndjson="\n".join(lines) + "\n")
        if st != 200:
            self.errors.append("bulk: %d %r" % (st, r))
            return
        for (k, new), item in zip(plan, r["items"]):
            res = next(iter(item.values()))
            if res["status"] in (200, 201):
                self.keys[k].ack(new, res.get("_version"), res.get("_seq_no"))
            elif res["status"] == 404 and new is MISSING:
                self.keys[k].ack(MISSING, None, None)
            elif res["status"] == 500:
                raise Refused()  # later items stay "maybe"
            else:
                self.errors.append("bulk item: %r" % res)


def check(url, clients, problems):
    """Compares every id with the record; resolves each id's record to what
    the server has (so the next trial starts from the truth)."""
    s = requests.Session()
    s.post(url + "/%s/_refresh" % INDEX, timeout=30)
    present = 0
    for c in clients:
        for k, key in enumerate(c.keys):
            i = c.id(k)
            r = s.get(url + "/%s/_doc/%s" % (INDEX, i), timeout=30)
            if r.status_code == 404:  # no such document, or (before any write) no such index
                got, ver, seq = MISSING, None, None
            elif r.status_code == 200:
                j = r.json()
                got, ver, seq = j["_source"], j["_version"], j["_seq_no"]
                present += 1
            else:
                problems.append("GET %s: %d %s" % (i, r.status_code, r.text))
                continue
            allowed = [(key.state, key.version, key.seq_no)] + key.maybe
            ok = False
            for state, v, q in allowed:
                if state == got and (v is None or got is MISSING or (v == ver and q == seq)):
                    ok = True
                    break
            if not ok:
                problems.append("%s: found %r (version %r seq_no %r), acknowledged %r (version %r seq_no %r), "
                                "unanswered %r" % (i, got, ver, seq, key.state, key.version, key.seq_no, key.maybe))
            key.ack(got, ver, seq)
    r = s.get(url + "/%s/_count" % INDEX, timeout=30)
    if r.status_code == 200 and r.json()["count"] != present:
        problems.append("_count %d, documents found %d" % (r.json()["count"], present))
    return present


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--trials", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--clients", type=int, default=3)
    ap.add_argument("--keys", type=int, default=40)
    ap.add_argument("--fault-every", type=int, default=4, help="every Nth trial injects a fault (0: none)")
    ap.add_argument("--bin", default=os.environ.get("TROVE_BIN", str(ROOT / "build" / "trove")))
    ap.add_argument("--keep", action="store_true", help="keep the data directory")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    data = tempfile.mkdtemp(prefix="trove-crash-")
    keys = [[Key() for _ in range(a.keys)] for _ in range(a.clients)]
    problems, acked_total, started = [], 0, time.monotonic()
    try:
        for t in range(a.trials):
            fault = None
            if a.fault_every and t % a.fault_every == a.fault_every - 1:
                fault = rng.choice(["write:%d:ENOSPC", "write:%d:EIO", "sync:%d:EIO", "rename:%d:EIO"]) % rng.randint(1, 120)
            srv = Server(a.bin, data, fault)
            stop = threading.Event()
            ops = [0]
            clients = [Client(c, srv.url, keys[c], random.Random(rng.random()), stop, ops)
                       for c in range(a.clients)]
            for c in clients:
                c.start()
            time.sleep(rng.uniform(0.05, 0.6))
            srv.kill()  # SIGKILL, mid-flight
            stop.set()
            for c in clients:
                c.join(15)
                if c.is_alive():
                    problems.append("trial %d: client %d did not stop" % (t, c.cid))
                problems.extend("trial %d: %s" % (t, e) for e in c.errors)
            srv = Server(a.bin, data)
            before = len(problems)
            present = check(srv.url, clients, problems)
            if b"not served" in srv.log:
                problems.append("trial %d: recovery refused an index: %s" % (t, srv.log.decode(errors="replace")))
            srv.kill()
            chk = subprocess.run([a.bin, "check", data], capture_output=True, timeout=120)
            if chk.returncode != 0:
                problems.append("trial %d: trove check: %s%s" % (t, chk.stdout.decode(), chk.stderr.decode()))
            acked_total += ops[0]
            print("trial %d: %d operations, fault %s, %d documents after recovery%s" %
                  (t, ops[0], fault or "none", present, "" if len(problems) == before else " PROBLEMS"),
                  flush=True)
            if len(problems) > 20:
                break
    finally:
        if a.keep:
            print("data directory kept:", data)
        else:
            shutil.rmtree(data, ignore_errors=True)
    print("crash loop: %d trials, %d operations, %.1f s, %d problems" %
          (t + 1, acked_total, time.monotonic() - started, len(problems)))
    for p in problems[:20]:
        print("  " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
