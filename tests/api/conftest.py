"""Fixtures for the HTTP tests of `trove serve`.

The server binary is $TROVE_BIN (default: build/trove at the repository
root). Every server listens on 127.0.0.1 with --port 0 and the URL is read
from the line it logs on stderr.
"""
import os
import pathlib
import select
import signal
import socket
import subprocess
import time

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def refused(url):
    """Is a connection to http(s)://HOST:PORT refused (a closed clone's port)?"""
    host, port = url.split("://", 1)[1].rsplit(":", 1)
    s = socket.socket()
    s.settimeout(2)
    try:
        s.connect((host, int(port)))
    except ConnectionRefusedError:
        return True
    finally:
        s.close()
    return False


def trove_bin():
    b = os.environ.get("TROVE_BIN", str(ROOT / "build" / "trove"))
    if not os.path.isabs(b):
        b = str(ROOT / b)
    return b


class Server:
    def __init__(self, *extra):
        binary = trove_bin()
        if not os.path.exists(binary):
            pytest.skip(f"no trove binary at {binary} (set TROVE_BIN)")
        self.proc = subprocess.Popen(
            [binary, "serve", "--host", "127.0.0.1", "--port", "0", *extra],
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
                chunk = os.read(self.proc.stderr.fileno(), 4096)
                if not chunk:
                    continue
                self.log += chunk
        line = self.log.split(b"listening on ", 1)[1].split(b"\n", 1)[0].decode()
        self.url = line.strip()
        hostport = self.url.split("://", 1)[1]  # http:// or, with --tls-cert, https://
        self.host, port = hostport.rsplit(":", 1)
        self.port = int(port)

    def stop(self, sig=signal.SIGTERM, timeout=20):
        """Signals the server and returns its exit code and stderr."""
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            rc = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError("trove serve did not exit within %ss" % timeout)
        rest = self.proc.stderr.read()
        self.proc.stderr.close()
        return rc, (self.log + rest).decode(errors="replace")


@pytest.fixture(scope="session")
def server():
    s = Server()
    yield s
    rc, log = s.stop()
    assert rc == 0, log


@pytest.fixture
def make_server():
    """Starts private servers (for tests that kill or reconfigure them)."""
    started = []

    def make(*extra):
        s = Server(*extra)
        started.append(s)
        return s

    yield make
    for s in started:
        if s.proc.poll() is None:
            s.stop(signal.SIGKILL)
