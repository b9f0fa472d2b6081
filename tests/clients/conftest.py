"""Fixtures for the client tests: a private `trove serve` per test module.

The binary is $TROVE_BIN (default: build/trove at the repository root). The
server runs in memory on 127.0.0.1 with --port 0; its URL is read from the
"listening on" line it logs on stderr. At the end the server gets SIGTERM and
must exit 0 (a crash or a sanitizer report under an ASan build fails the test
that owns the server).
"""
import json
import os
import pathlib
import select
import signal
import subprocess
import time
import urllib.error
import urllib.request

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def trove_bin():
    b = os.environ.get("TROVE_BIN", str(ROOT / "build" / "trove"))
    if not os.path.isabs(b):
        b = str(ROOT / b)
    return b


class Trove:
    def __init__(self):
        binary = trove_bin()
        if not os.path.exists(binary):
            pytest.fail(f"no trove binary at {binary} (set TROVE_BIN)")
        self.proc = subprocess.Popen(
            [binary, "serve", "--host", "127.0.0.1", "--port", "0"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        self.log = b""
        deadline = time.monotonic() + 10
        while b"listening on " not in self.log:
            left = deadline - time.monotonic()
            if left <= 0 or self.proc.poll() is not None:
                self.proc.kill()
                raise RuntimeError("trove serve did not start: %r" % self.log)
            r, _, _ = select.select([self.proc.stderr], [], [], left)
            if r:
                self.log += os.read(self.proc.stderr.fileno(), 4096)
        self.url = self.log.split(b"listening on ", 1)[1].split(b"\n", 1)[0].decode().strip()

    def request(self, method, path, body=None):
        """Plain HTTP, no client library: returns (status, headers, parsed JSON body)."""
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, method=method)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=10) as resp:
                raw = resp.read()
                return resp.status, dict(resp.headers), json.loads(raw) if raw else None
        except urllib.error.HTTPError as e:
            raw = e.read()
            return e.code, dict(e.headers), json.loads(raw) if raw else None

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            rc = self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            rc = "timeout"
        rest = self.proc.stderr.read()
        self.proc.stderr.close()
        return rc, (self.log + rest).decode(errors="replace")


@pytest.fixture
def trove():
    """A fresh in-memory server for one test."""
    t = Trove()
    yield t
    rc, log = t.stop()
    assert rc == 0, log
