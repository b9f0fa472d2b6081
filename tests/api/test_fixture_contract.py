"""The process contract of `trove serve` for test fixtures.

`trove serve --port 0 --seed PATH --ready-json [--parent-pid N]
[--no-stdin-watch]` loads its seeds, then prints exactly one JSON line on
stdout ({"url","pid","version","indices"}) once it listens; it stops on
stdin EOF, SIGTERM/SIGINT, or when the parent pid disappears. Also the
spellings of osmem's helpers: --addr HOST:PORT and --no-ja.

Run: /usr/bin/python3 -m pytest tests/api (TROVE_BIN selects the binary).
As a script, `python3 tests/api/test_fixture_contract.py [RUNS]` prints the
time from starting the process to reading its ready line with the 3-document
items3 seed (median and minimum over RUNS, default 200).
"""
import json
import os
import pathlib
import select
import signal
import subprocess
import sys
import time
import urllib.request

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from conftest import trove_bin  # noqa: E402

SEEDS = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "seed"
TIMEOUT = 10


class Proc:
    """A `trove serve` child with pipes on stdin, stdout and stderr."""

    def __init__(self, *args, stdin=subprocess.PIPE):
        binary = trove_bin()
        if not os.path.exists(binary):
            pytest.skip(f"no trove binary at {binary} (set TROVE_BIN)")
        self.p = subprocess.Popen([binary, "serve", *args], stdin=stdin, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE)

    def ready(self):
        """The ready line, parsed (fails the test when none comes)."""
        r, _, _ = select.select([self.p.stdout], [], [], TIMEOUT)
        assert r, "no ready line"
        line = self.p.stdout.readline()
        assert line.endswith(b"\n"), (line, self.p.stderr.read() if self.p.poll() is not None else b"")
        return json.loads(line)

    def listening(self):
        """Waits for the "listening on" log line (signals are handled from then on)."""
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            r, _, _ = select.select([self.p.stderr], [], [], max(0.0, deadline - time.monotonic()))
            assert r, "no listening line"
            line = self.p.stderr.readline()
            assert line, "trove serve exited before listening"
            if b"listening on" in line:
                return
        raise AssertionError("no listening line")

    def wait(self, timeout=TIMEOUT):
        try:
            rc = self.p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
            raise AssertionError("trove serve did not exit")
        out, err = self.p.stdout.read(), self.p.stderr.read()
        for f in (self.p.stdout, self.p.stderr, self.p.stdin):
            if f:
                f.close()
        return rc, out, err.decode(errors="replace")

    def kill(self):
        if self.p.poll() is None:
            self.p.kill()
        self.wait()


@pytest.fixture
def procs():
    made = []

    def make(*args, **kw):
        p = Proc(*args, **kw)
        made.append(p)
        return p

    yield make
    for p in made:
        if p.p.poll() is None:
            p.kill()


def get(url, path):
    with urllib.request.urlopen(url + path, timeout=TIMEOUT) as r:
        return json.loads(r.read())


def test_ready_line_is_the_only_stdout_line_and_stdin_eof_stops(procs):
    p = procs("--port", "0", "--seed", str(SEEDS / "items"), "--ready-json")
    ready = p.ready()
    assert list(ready) == ["url", "pid", "version", "indices"]
    assert ready["url"].startswith("http://127.0.0.1:")
    assert int(ready["url"].rsplit(":", 1)[1]) > 0
    assert ready["pid"] == p.p.pid
    assert ready["version"] == subprocess.run([trove_bin(), "--version"], capture_output=True,
                                              text=True).stdout.split()[1]
    assert ready["indices"] == ["items", "logs-2024", "logs-other"]
    assert get(ready["url"], "/items/_count")["count"] == 3
    assert get(ready["url"], "/")["version"]["distribution"] == "opensearch"
    p.p.stdin.close()
    rc, out, err = p.wait()
    assert rc == 0, err
    assert out == b""  # nothing after the ready line
    assert "stdin closed" in err and "listening on" in err


def test_no_seed_has_no_indices(procs):
    p = procs("--port", "0", "--ready-json")
    assert p.ready()["indices"] == []


def test_no_stdin_watch(procs):
    p = procs("--port", "0", "--ready-json", "--no-stdin-watch", stdin=subprocess.DEVNULL)
    url = p.ready()["url"]
    time.sleep(0.3)
    assert p.p.poll() is None
    assert "tagline" in get(url, "/")
    p.p.send_signal(signal.SIGTERM)
    rc, out, err = p.wait()
    assert rc == 0 and out == b"" and "stopped" in err


def test_without_ready_json_stdin_is_not_watched(procs):
    # plain `trove serve` keeps running with stdin at EOF (services, shells)
    p = procs("--port", "0", stdin=subprocess.DEVNULL)
    p.listening()  # a fixed sleep lost the race to startup on a loaded machine
    time.sleep(0.3)
    assert p.p.poll() is None
    p.p.send_signal(signal.SIGINT)
    rc, out, err = p.wait()
    assert rc == 0 and out == b"", err


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_signals_stop(procs, sig):
    p = procs("--port", "0", "--seed", str(SEEDS / "items"), "--ready-json")
    p.ready()
    p.p.send_signal(sig)
    rc, out, err = p.wait()
    assert rc == 0 and out == b"" and "trove: stopped" in err


def test_parent_pid_exit_stops(procs):
    parent = subprocess.Popen(["sleep", "60"])
    try:
        p = procs("--port", "0", "--ready-json", "--no-stdin-watch", "--parent-pid", str(parent.pid))
        p.ready()
        time.sleep(0.2)
        assert p.p.poll() is None
    finally:
        parent.kill()
        parent.wait()
    rc, out, err = p.wait()
    assert rc == 0 and "parent process is gone" in err


def test_parent_pid_already_gone(procs):
    parent = subprocess.Popen(["true"])
    parent.wait()
    p = procs("--port", "0", "--no-stdin-watch", "--parent-pid", str(parent.pid))
    rc, _, err = p.wait()
    assert rc == 0 and "parent process is gone" in err


def test_single_file_and_several_seeds(procs):
    p = procs("--port", "0", "--seed", str(SEEDS / "single.ndjson"), "--seed", str(SEEDS / "items"),
              "--ready-json")
    ready = p.ready()
    assert ready["indices"] == ["books", "films", "items", "logs-2024", "logs-other"]
    assert get(ready["url"], "/books/_count")["count"] == 1
    assert get(ready["url"], "/shop/_search?q=category:kitchen")["hits"]["total"]["value"] == 2
    assert get(ready["url"], "/logs-2024/_mapping")["logs-2024"]["mappings"]["properties"]["level"] == {
        "type": "keyword"}


def test_failed_item_aborts_start(procs):
    p = procs("--port", "0", "--seed", str(SEEDS / "bad"), "--ready-json")
    rc, out, err = p.wait()
    assert rc == 1
    assert out == b""
    assert "listening" not in err
    want = (f"trove: cannot load seed: {SEEDS / 'bad' / 'items.ndjson'}:4: mapper_parsing_exception: "
            "failed to parse field [price] of type [double] in document with id '2'.")
    assert want in err


def test_missing_seed(procs):
    p = procs("--port", "0", "--seed", str(SEEDS / "nope"), "--ready-json")
    rc, out, err = p.wait()
    assert rc == 1 and out == b"" and "nope: cannot read the seed" in err


def test_osmem_spellings(procs):
    p = procs("--addr", "127.0.0.1:0", "--no-ja", "--seed", str(SEEDS / "items"), "--ready-json")
    ready = p.ready()
    assert ready["url"].startswith("http://127.0.0.1:") and not ready["url"].endswith(":0")
    assert get(ready["url"], "/items/_count")["count"] == 3


def test_wildcard_host_gives_a_loopback_url(procs):
    p = procs("--addr", "0.0.0.0:0", "--ready-json")
    url = p.ready()["url"]
    assert url.startswith("http://127.0.0.1:")
    assert "tagline" in get(url, "/")


@pytest.mark.parametrize("args,msg", [
    (["--addr", "127.0.0.1"], "bad option [--addr]"),
    (["--addr", "127.0.0.1:99999"], "bad option [--addr]"),
    (["--parent-pid", "x"], "bad option [--parent-pid]"),
])
def test_bad_flags(procs, args, msg):
    p = procs("--port", "0", "--ready-json", *args)
    rc, out, err = p.wait()
    assert rc == 2 and out == b"" and msg in err


def ready_time():
    """Seconds from spawning the process to reading its ready line."""
    t0 = time.perf_counter()
    p = subprocess.Popen([trove_bin(), "serve", "--port", "0", "--threads", "1", "--seed",
                          str(SEEDS / "items3"), "--ready-json"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    p.stdout.readline()
    t = time.perf_counter() - t0
    p.stdin.close()
    p.wait()
    p.stdout.close()
    return t


def test_start_to_ready_is_fast():
    if not os.path.exists(trove_bin()):
        pytest.skip("no trove binary")
    best = min(ready_time() for _ in range(5))
    assert best < 0.5  # the goal is 5 ms; this only catches gross regressions on a busy machine


if __name__ == "__main__":
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    ts = sorted(ready_time() for _ in range(runs))
    print(f"start to ready line, 3-document seed: median {ts[len(ts) // 2] * 1e3:.2f} ms, "
          f"min {ts[0] * 1e3:.2f} ms, p90 {ts[int(len(ts) * 0.9)] * 1e3:.2f} ms over {runs} runs")
