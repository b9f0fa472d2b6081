"""Fixtures of the `trove sync` tests: one PostgreSQL cluster for the
session, a database per test, and a trove server (in memory) per test for
the feeds that write over HTTP."""
import itertools
import os
import re
import select
import subprocess
import time

import pytest

from pgharness import Db, Postgres, trove_bin

_n = itertools.count()


@pytest.fixture(scope="session")
def pg():
    p = Postgres()
    yield p
    p.destroy()


@pytest.fixture
def db(pg, request):
    name = "t%d_%s" % (next(_n), re.sub(r"[^a-z0-9]", "_", request.node.name.lower())[:40])
    d = Db(pg, name)
    yield d
    d.conn.close()


class Server:
    def __init__(self, *extra):
        self.proc = subprocess.Popen([trove_bin(), "serve", "--host", "127.0.0.1", "--port", "0", *extra],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        log = b""
        deadline = time.monotonic() + 10
        while b"listening on " not in log:
            left = deadline - time.monotonic()
            if left <= 0 or self.proc.poll() is not None:
                self.proc.kill()
                raise RuntimeError("trove serve did not start: %r" % log)
            r, _, _ = select.select([self.proc.stderr], [], [], left)
            if r:
                log += os.read(self.proc.stderr.fileno(), 4096)
        self.url = log.split(b"listening on ", 1)[1].split(b"\n", 1)[0].decode().strip()

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc.stderr.close()


@pytest.fixture
def server():
    s = Server()
    yield s
    s.stop()
