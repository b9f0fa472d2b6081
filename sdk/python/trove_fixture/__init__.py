"""Start a trove server as a test fixture and hand out clones of it.

Standard library only (Python 3.8+).

    from trove_fixture import TroveServer

    with TroveServer.start(seed="tests/seed") as server:
        with server.clone() as url:
            ...  # talk to url with any OpenSearch client

The server is started with ``trove serve --port 0 --ready-json --parent-pid
<this process>``; it prints one JSON line once it listens and is seeded.  It
exits when its stdin is closed (``close()``), on SIGTERM, or when this
process disappears, so a crashed test run leaves no server behind.
"""

import json
import os
import selectors
import shutil
import signal
import subprocess
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from contextlib import contextmanager

__all__ = ["TroveServer", "TroveError", "find_binary"]

__version__ = "0.1.0"


class TroveError(RuntimeError):
    """The server could not be found, started, or asked for a clone."""


def find_binary(binary=None):
    """Return the trove executable: *binary*, else $TROVE_BIN, else `trove` on PATH."""
    candidate = binary or os.environ.get("TROVE_BIN")
    if candidate:
        candidate = os.fspath(candidate)
        if os.path.sep not in candidate:
            found = shutil.which(candidate)
            if found:
                return found
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return os.path.abspath(candidate)
        raise TroveError("trove binary not found or not executable: %s" % candidate)
    found = shutil.which("trove")
    if found:
        return found
    raise TroveError("trove binary not found: pass binary=, set TROVE_BIN, or put trove on PATH")


def _seed_list(seed):
    if seed is None:
        return []
    if isinstance(seed, (str, bytes, os.PathLike)):
        return [os.fspath(seed)]
    return [os.fspath(s) for s in seed]


# The server is always on loopback: never route management calls through an
# http_proxy from the environment.
_opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def _request(method, url, timeout):
    req = urllib.request.Request(url, method=method, data=b"" if method == "POST" else None)
    if method == "POST":
        req.add_header("Content-Type", "application/json")
    try:
        with _opener.open(req, timeout=timeout) as resp:
            body = resp.read()
            return resp.status, body
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def _read_line(fd, timeout):
    """Read one line from *fd* within *timeout* seconds, without a buffered
    reader (so nothing beyond the line is consumed and nothing blocks past the
    deadline).  Returns the bytes including the newline, b"" on EOF before any
    newline, or None on timeout."""
    deadline = time.monotonic() + timeout
    data = b""
    with selectors.DefaultSelector() as sel:
        sel.register(fd, selectors.EVENT_READ)
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            if not sel.select(left):
                continue
            chunk = os.read(fd, 4096)
            if not chunk:
                return b""
            data += chunk
            if b"\n" in data:
                return data[:data.index(b"\n") + 1]


class TroveServer:
    """A running `trove serve` process.  Use :meth:`start` to create one."""

    def __init__(self, proc, ready, stderr_lines, drainer=None):
        self._proc = proc
        self._drainer = drainer
        self._stderr_lines = stderr_lines
        self.url = ready["url"].rstrip("/")
        self.pid = ready["pid"]
        self.version = ready.get("version")
        self.indices = list(ready.get("indices", []))
        self.ready = ready

    # -- start-up ---------------------------------------------------------

    @classmethod
    def start(cls, seed=None, binary=None, freeze=False, args=(), timeout=30.0):
        """Start trove and wait for its ready line.

        *seed* is None, a path (directory or .ndjson file), or a list of
        paths; *binary* overrides $TROVE_BIN / PATH; *freeze* freezes the
        base (writes answer 403); *args* are extra command-line arguments.
        Raises TroveError, with the server's stderr, if it exits or does not
        become ready within *timeout* seconds.
        """
        exe = find_binary(binary)
        cmd = [exe, "serve", "--port", "0", "--ready-json", "--parent-pid", str(os.getpid())]
        for s in _seed_list(seed):
            cmd += ["--seed", s]
        if freeze:
            cmd.append("--freeze")
        cmd += [os.fspath(a) for a in args]
        try:
            proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, close_fds=True)
        except OSError as e:
            raise TroveError("cannot run %s: %s" % (exe, e))

        # stderr is drained by a thread so a chatty server never blocks, and
        # so its last lines can go into an error message.
        stderr_lines = []

        def drain():
            for raw in iter(proc.stderr.readline, b""):
                stderr_lines.append(raw.decode("utf-8", "replace").rstrip("\n"))
                del stderr_lines[:-200]
            proc.stderr.close()

        drainer = threading.Thread(target=drain, name="trove-stderr", daemon=True)
        drainer.start()

        line = _read_line(proc.stdout.fileno(), timeout)

        def fail(why):
            status = cls._stop(proc, 0.5)
            drainer.join(1.0)  # the server's last words
            if why is None:
                why = "exited with status %s" % status
            err = "\n".join(stderr_lines).strip()
            msg = "trove failed to start (%s): %s" % (why, " ".join(cmd))
            if err:
                msg += "\n" + err
            raise TroveError(msg)

        if line is None:
            fail("no ready line within %.1f s" % timeout)
        if not line:
            fail(None)
        try:
            ready = json.loads(line.decode("utf-8"))
            ready["url"]
        except (ValueError, KeyError, TypeError):
            fail("unreadable ready line %r" % line)
        # stdout carries nothing after the ready line; keep it open (closing
        # it could give the server EPIPE) but never read it again.
        return cls(proc, ready, stderr_lines, drainer)

    # -- clones -----------------------------------------------------------

    def create_clone(self, timeout=10.0):
        """POST /_trove/clones; return ``{"id": ..., "url": ...}``.  Freezes the base."""
        status, body = _request("POST", self.url + "/_trove/clones", timeout)
        if status != 201:
            raise TroveError("POST /_trove/clones answered %s: %s"
                             % (status, body.decode("utf-8", "replace")))
        return json.loads(body.decode("utf-8"))

    def delete_clone(self, clone_id, timeout=10.0):
        """DELETE /_trove/clones/{id}; a clone already gone is not an error."""
        status, body = _request("DELETE", "%s/_trove/clones/%s"
                                % (self.url, urllib.parse.quote(str(clone_id), safe="")), timeout)
        if status not in (200, 204, 404):
            raise TroveError("DELETE /_trove/clones/%s answered %s: %s"
                             % (clone_id, status, body.decode("utf-8", "replace")))

    @contextmanager
    def clone(self):
        """Context manager yielding the URL of a fresh clone, deleted on exit."""
        c = self.create_clone()
        try:
            yield c["url"].rstrip("/")
        finally:
            if self.running:
                self.delete_clone(c["id"])

    # -- shutdown ---------------------------------------------------------

    @property
    def running(self):
        return self._proc.poll() is None

    @property
    def returncode(self):
        return self._proc.poll()

    @property
    def stderr(self):
        """The last lines the server wrote to stderr."""
        return "\n".join(self._stderr_lines)

    @staticmethod
    def _stop(proc, timeout):
        try:
            if proc.stdin and not proc.stdin.closed:
                proc.stdin.close()
        except OSError:
            pass
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            try:
                proc.send_signal(signal.SIGTERM)
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if proc.stdout:
            proc.stdout.close()
        return proc.returncode

    def close(self, timeout=5.0):
        """Close the server's stdin and wait for it; then SIGTERM, then SIGKILL
        after *timeout* seconds each.  Returns the exit status."""
        status = self._stop(self._proc, timeout)
        if self._drainer is not None:
            self._drainer.join(1.0)  # so .stderr holds the server's last words
        return status

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __repr__(self):
        return "<TroveServer %s pid=%s%s>" % (self.url, self.pid, "" if self.running else " stopped")
