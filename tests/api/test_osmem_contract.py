"""trove as the server binary of osmem's client helpers (OSMEM_SERVER_BIN).

osmem (an in-memory Go fake of OpenSearch) ships test helpers for Python
(`osmem_server.OsmemServer` and its pytest plugin), Node (`OsmemServer` of
its core package) and Java (`OsmemServer` / `OsmemClone` / the JUnit 5
`OsmemExtension`). Each of them finds its server binary through the
OSMEM_SERVER_BIN environment variable, so a user points them at trove by
setting OSMEM_SERVER_BIN to the trove binary. This file plays those helpers'
part against $TROVE_BIN, step by step, and checks what they depend on.

What the helpers do, in our words:

* Start. All three run the binary itself, with no subcommand, as
      BIN --parent-pid <helper pid> [--seed PATH]... [--freeze] [--no-ja] [--addr HOST:PORT]
  (one --seed per seed directory or .ndjson file, in the caller's order;
  --no-ja only when Japanese analysis is turned off, which is not the
  default; --addr only when the caller gives one: otherwise the server is
  expected to pick a free port on 127.0.0.1). stdin and stdout are pipes,
  stderr is inherited. Nothing else is passed: no --ready-json, no --port.
* Ready line. They read stdout line by line until one line is a JSON object
  with a "url" (Python: json.loads, skipping lines that are not JSON; Node:
  JSON.parse and a truthy url; Java: the first line containing "url", then
  regular expressions for "url" and "indices"). Python and Node keep url,
  pid, version, japanese and indices from it; Java keeps url and indices.
  If the process exits first, start-up fails.
* Clones. POST {url}/_osmem/clones with Content-Type: application/json and
  no body (Python, Node) or the body {} (Java); any 2xx is accepted, osmem
  answers 201 {"id","url"}; Python and Node read res["id"] and res["url"],
  Java takes the first "id":"..." and "url":"..." out of the raw body, so
  both must be JSON strings. A clone is closed with DELETE
  {url}/_osmem/clones/{id} (no body; errors are swallowed, but Python parses
  a successful answer as JSON). osmem's own helper tests check that a clone
  serves the seed, that writes to it are seen neither by the base nor by
  another clone, that the next clone starts from the seed again, that GET
  /_osmem/clones lists {"clones":[...]} and that a closed clone's port
  refuses connections.
* Freeze. POST {url}/_osmem/base/freeze (no body, or {} from Java); the
  answer must be 2xx and, for Python, JSON. A frozen base refuses writes
  with 403, and the helpers' error text is "<error.type>: <error.reason>":
  osmem's tests expect the type osmem_base_frozen. Creating a clone freezes
  the base; POST /_osmem/base/unfreeze undoes it.
* Stop. close() closes the child's stdin, waits up to 5 s for it to exit,
  then kills it. --parent-pid makes the server exit when the helper's
  process is gone (a crashed test runner leaves nothing behind).

Run: TROVE_BIN=build/trove /usr/bin/python3 -m pytest -q tests/api/test_osmem_contract.py
"""
import json
import os
import pathlib
import re
import select
import signal
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
import urllib.error
import urllib.request

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from conftest import refused, trove_bin  # noqa: E402

SEEDS = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "seed"
ITEMS = str(SEEDS / "items")  # a seed directory: items (3 docs), logs-* template, aliases
SINGLE = str(SEEDS / "single.ndjson")  # a seed file: books (1 doc), films (1 doc)
SEEDED_INDICES = ["books", "films", "items", "logs-2024", "logs-other"]
STARTUP = 10  # seconds to the ready line
GRACE = 5  # the helpers' close(): seconds between closing stdin and killing
TEST_LIMIT = 60  # no test runs longer than this

# Java's OsmemServer reads the ready line and the clone answer with these
URL_RE = re.compile(r'"url"\s*:\s*"([^"]+)"')
ID_RE = re.compile(r'"id"\s*:\s*"([^"]+)"')
INDICES_RE = re.compile(r'"indices"\s*:\s*\[([^\]]*)\]')


@pytest.fixture(autouse=True)
def _time_limit():
    def expired(signum, frame):
        raise TimeoutError(f"test ran longer than {TEST_LIMIT}s")

    old = signal.signal(signal.SIGALRM, expired)
    signal.alarm(TEST_LIMIT)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


def japanese_built():
    """Whether the trove under test was built with Japanese analysis (its build
    directory's CMakeCache.txt says TROVE_JAPANESE) and MeCab's IPADIC is installed."""
    cache = pathlib.Path(trove_bin()).resolve().parent / "CMakeCache.txt"
    if not cache.exists():
        pytest.skip(f"no {cache} to tell whether trove was built with Japanese analysis")
    on = "TROVE_JAPANESE:BOOL=ON" in cache.read_text()
    return on and pathlib.Path("/var/lib/mecab/dic/ipadic-utf8/sys.dic").exists()


def helper_argv(seeds=(), freeze=False, japanese=True, addr=None, parent_pid=None):
    """The argv osmem's helpers build, in their order."""
    argv = [trove_bin(), "--parent-pid", str(parent_pid if parent_pid else os.getpid())]
    for s in seeds:
        argv += ["--seed", s]
    if freeze:
        argv.append("--freeze")
    if not japanese:
        argv.append("--no-ja")
    if addr:
        argv += ["--addr", addr]
    return argv


class Started:
    """One server started the way the helpers start it."""

    def __init__(self, argv):
        if not os.path.exists(argv[0]):
            pytest.skip(f"no trove binary at {argv[0]} (set TROVE_BIN)")
        self.argv = argv
        self.err = tempfile.TemporaryFile()  # the helpers inherit stderr; kept for messages
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.err)
        self.raw, self.ready = self._read_ready()
        self.url = self.ready["url"]

    def stderr(self):
        self.err.seek(0)
        return self.err.read().decode(errors="replace")

    def _read_ready(self):
        """Lines up to the first JSON object with a "url", as Python's helper reads them."""
        deadline = time.monotonic() + STARTUP
        buf = b""
        while True:
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                try:
                    msg = json.loads(line)
                except ValueError:
                    continue
                if isinstance(msg, dict) and "url" in msg:
                    return line.decode(), msg
            left = deadline - time.monotonic()
            if left <= 0:
                self.proc.kill()
                self.proc.wait()
                pytest.fail(f"no ready line within {STARTUP}s for {self.argv[1:]}; stderr: {self.stderr()!r}")
            r, _, _ = select.select([self.proc.stdout], [], [], left)
            if r:
                chunk = os.read(self.proc.stdout.fileno(), 4096)
                if not chunk:
                    rc = self.proc.wait(timeout=GRACE)
                    pytest.fail(f"server exited during startup (rc {rc}) for {self.argv[1:]}; "
                                f"stderr: {self.stderr()!r}")
                buf += chunk

    def close(self):
        """The helpers' close(): stdin closed, 5 s of grace, then a kill. Returns the exit code
        (None when it had to be killed)."""
        if self.proc.poll() is not None:
            return self.proc.returncode
        self.proc.stdin.close()
        try:
            return self.proc.wait(timeout=GRACE)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return None

    def cleanup(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for f in (self.proc.stdin, self.proc.stdout):
            if f and not f.closed:
                f.close()
        self.err.close()


@pytest.fixture
def start():
    started = []

    def make(**kw):
        s = Started(helper_argv(**kw))
        started.append(s)
        return s

    yield make
    for s in started:
        s.cleanup()


def call(url, method, path, body=None):
    """A request as the helpers send it: always Content-Type: application/json;
    body None (nothing, as Python and Node), bytes or a JSON value.
    Returns (status, raw text)."""
    data = None
    if body is not None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
    rq = urllib.request.Request(url + path, data=data, method=method,
                                headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(rq, timeout=10) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def jcall(url, method, path, body=None):
    """call(), the answer parsed as Python's helper parses it (empty is {})."""
    st, text = call(url, method, path, body)
    return st, (json.loads(text) if text else {})


def count(url, index="items"):
    st, b = jcall(url, "GET", f"/{index}/_count")
    assert st == 200, b
    return b["count"]


def gone(pid):
    """The process is dead (a zombie waiting for a reaper counts as dead)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True


def wait_gone(pid, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if gone(pid):
            return True
        time.sleep(0.05)
    return gone(pid)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def assert_frozen_refusal(st, text):
    """What the helpers see when they write to a frozen base."""
    assert st == 403, (st, text)
    b = json.loads(text)
    assert isinstance(b.get("error"), dict), b
    assert b["error"]["type"] == "osmem_base_frozen", b["error"]
    assert b["error"].get("reason"), b["error"]


# ------------------------------------------------------------------ start


def test_start_and_ready_line(start):
    """Python/Node/Java start(): BIN --parent-pid PID --seed DIR --seed FILE --freeze
    (Japanese left on, so no --no-ja; no --addr), then the ready line read their ways."""
    s = start(seeds=[ITEMS, SINGLE], freeze=True)
    r = s.ready
    # Python and Node
    assert isinstance(r["url"], str) and re.fullmatch(r"http://127\.0\.0\.1:\d+", r["url"]), r
    assert int(r["url"].rsplit(":", 1)[1]) > 0
    assert r["pid"] == s.proc.pid
    assert isinstance(r["version"], str) and r["version"]
    assert r["indices"] == SEEDED_INDICES
    # osmem's ready line carries "japanese" (Python and Node expose it as .japanese):
    # true exactly when Japanese analysis works, which a build with TROVE_JAPANESE has
    assert isinstance(r.get("japanese"), bool), r
    assert r["japanese"] is japanese_built(), r
    st, b = jcall(s.url, "POST", "/_analyze", {"analyzer": "kuromoji", "text": "寿司を食べた"})
    assert st == (200 if r["japanese"] else 400), b
    if r["japanese"]:
        assert [t["token"] for t in b["tokens"]] == ["寿司", "食べる"], b
    # Java: the first line with "url", then its regular expressions
    assert URL_RE.search(s.raw).group(1) == r["url"]
    java_indices = [t.strip().replace('"', "") for t in INDICES_RE.search(s.raw).group(1).split(",")]
    assert [t for t in java_indices if t] == SEEDED_INDICES
    # the URL serves the seed
    assert count(s.url) == 3
    assert count(s.url, "books") == 1
    st, b = jcall(s.url, "GET", "/")
    assert st == 200 and b["version"]["distribution"] == "opensearch"


def test_default_address_is_a_free_loopback_port(start):
    """Without --addr the helpers expect 127.0.0.1 and a port of the server's choosing:
    two helpers (two test sessions) start side by side."""
    a = start(seeds=[ITEMS])
    b = start(seeds=[ITEMS])
    assert a.url != b.url
    for s in (a, b):
        assert s.url.startswith("http://127.0.0.1:")
        assert count(s.url) == 3


def test_addr_and_no_ja(start):
    """start(japanese=False, addr=...): ... --no-ja --addr 127.0.0.1:PORT; the ready line
    names that address and reports Japanese analysis off."""
    port = free_port()
    s = start(seeds=[ITEMS], japanese=False, addr=f"127.0.0.1:{port}")
    assert s.url == f"http://127.0.0.1:{port}"
    assert s.ready.get("japanese") is False, s.ready
    assert count(s.url) == 3
    # and it is off: the kuromoji analyzer falls back to the cjk analyzer's bigrams
    # (as osmem's does), the other kuromoji components answer 400 naming themselves
    st, b = jcall(s.url, "POST", "/_analyze", {"analyzer": "kuromoji", "text": "寿司を食べた"})
    assert st == 200 and [t["token"] for t in b["tokens"]] == ["寿司", "司を", "を食", "食べ", "べた"], b
    st, b = jcall(s.url, "POST", "/_analyze", {"tokenizer": "kuromoji_tokenizer", "text": "寿司"})
    assert st == 400 and b["error"]["type"] == "unsupported_operation_exception", b
    assert "kuromoji_tokenizer" in b["error"]["reason"], b


def test_no_seed(start):
    """start() with no seed: only --parent-pid; the caller seeds over REST, then freezes."""
    s = start()
    assert s.ready["indices"] == []
    st, _ = call(s.url, "PUT", "/items/_doc/1?refresh=true", {"title": "written by the test"})
    assert st == 201
    st, text = call(s.url, "POST", "/_osmem/base/freeze")
    assert st == 200, text
    assert_frozen_refusal(*call(s.url, "PUT", "/items/_doc/2", {"title": "x"}))
    assert count(s.url) == 1


# ------------------------------------------------------------------ freeze


def test_frozen_base_refuses_writes_reads_pass(start):
    """start(freeze=True) passes --freeze; request("PUT", ...) on the base must fail with
    403 osmem_base_frozen (osmem's Python and Node tests match that type); reads pass."""
    s = start(seeds=[ITEMS], freeze=True)
    assert_frozen_refusal(*call(s.url, "PUT", "/items/_doc/9", {"title": "x"}))
    assert_frozen_refusal(*call(s.url, "POST", "/items/_doc", {"title": "x"}))
    assert_frozen_refusal(*call(s.url, "DELETE", "/items/_doc/1"))
    assert count(s.url) == 3
    st, b = jcall(s.url, "POST", "/items/_search", {"query": {"match": {"title": "scarf"}}})
    assert st == 200 and b["hits"]["total"]["value"] >= 1


@pytest.mark.parametrize("body", [None, b"{}"], ids=["python-node", "java"])
def test_freeze_call(start, body):
    """freeze(): POST /_osmem/base/freeze (no body from Python and Node, {} from Java) on a
    base started without --freeze; a 2xx JSON answer, then writes refused; unfreeze lets
    them in again."""
    s = start(seeds=[ITEMS])
    assert call(s.url, "PUT", "/items/_doc/9?refresh=true", {"title": "before"})[0] == 201
    st, text = call(s.url, "POST", "/_osmem/base/freeze", body)
    assert 200 <= st < 300, text
    assert json.loads(text).get("frozen") is True
    assert_frozen_refusal(*call(s.url, "PUT", "/items/_doc/10", {"title": "x"}))
    st, b = jcall(s.url, "GET", "/_osmem")
    assert st == 200 and b["frozen"] is True
    st, b = jcall(s.url, "POST", "/_osmem/base/unfreeze", body)
    assert st == 200 and b.get("frozen") is False
    assert call(s.url, "PUT", "/items/_doc/10?refresh=true", {"title": "after"})[0] == 201
    assert count(s.url) == 5


def test_first_clone_freezes_the_base(start):
    """clone() on a base started without --freeze: the base is frozen from then on."""
    s = start(seeds=[ITEMS])
    assert call(s.url, "PUT", "/items/_doc/9?refresh=true", {"title": "seeded by the test"})[0] == 201
    st, c = jcall(s.url, "POST", "/_osmem/clones")
    assert st == 201, c
    assert count(c["url"]) == 4  # the clone sees what the base held when it was taken
    assert_frozen_refusal(*call(s.url, "PUT", "/items/_doc/10", {"title": "x"}))
    assert jcall(s.url, "GET", "/_osmem")[1]["frozen"] is True


# ------------------------------------------------------------------ clones


def test_clone_lifecycle_python_node(start):
    """The pytest plugin / Node withClone(): a clone per test from POST /_osmem/clones
    (no body), used, then DELETE /_osmem/clones/{id}."""
    s = start(seeds=[ITEMS, SINGLE], freeze=True)
    st, text = call(s.url, "POST", "/_osmem/clones")
    assert st == 201, text
    a = json.loads(text)
    assert isinstance(a["id"], str) and a["id"], a
    assert isinstance(a["url"], str) and re.fullmatch(r"http://127\.0\.0\.1:\d+", a["url"]), a
    assert a["url"] != s.url
    st, b = jcall(s.url, "POST", "/_osmem/clones")
    assert st == 201 and b["id"] != a["id"] and b["url"] != a["url"]
    # each clone serves the seed
    for c in (a, b):
        assert count(c["url"]) == 3 and count(c["url"], "books") == 1
        st, doc = jcall(c["url"], "GET", "/items/_doc/1")
        assert st == 200 and doc["_source"] == jcall(s.url, "GET", "/items/_doc/1")[1]["_source"]
    # a write to one clone is seen neither by the base nor by the other clone
    assert call(a["url"], "PUT", "/items/_doc/9?refresh=true", {"title": "only in a"})[0] == 201
    assert count(a["url"]) == 4
    assert count(b["url"]) == 3
    assert count(s.url) == 3
    assert call(s.url, "GET", "/items/_doc/9")[0] == 404
    # Node's test: GET /_osmem/clones is {"clones":[...]}
    st, lst = jcall(s.url, "GET", "/_osmem/clones")
    assert st == 200 and sorted(c["id"] for c in lst["clones"]) == sorted([a["id"], b["id"]])
    # close(): the answer is JSON (Python parses it), the port is closed at once
    for c in (a, b):
        st, text = call(s.url, "DELETE", f"/_osmem/clones/{c['id']}")
        assert 200 <= st < 300, text
        if text:
            json.loads(text)  # Python's helper parses it; not JSON would raise there
        assert refused(c["url"])
    assert jcall(s.url, "GET", "/_osmem/clones")[1]["clones"] == []
    # closing twice is an error status the helpers swallow, not a success
    assert call(s.url, "DELETE", f"/_osmem/clones/{a['id']}")[0] == 404
    # the next test's clone starts from the seed again
    st, c = jcall(s.url, "POST", "/_osmem/clones")
    assert st == 201 and count(c["url"]) == 3
    assert call(s.url, "DELETE", f"/_osmem/clones/{c['id']}")[0] == 200


def test_clone_lifecycle_java(start):
    """Java's OsmemExtension: clone() sends POST /_osmem/clones with the body {} and picks
    id and url out of the raw answer with regular expressions; close() sends DELETE."""
    s = start(seeds=[ITEMS], freeze=True)
    st, text = call(s.url, "POST", "/_osmem/clones", b"{}")
    assert st == 201, text
    parsed = json.loads(text)
    assert ID_RE.search(text) and URL_RE.search(text), text
    cid, curl = ID_RE.search(text).group(1), URL_RE.search(text).group(1)
    assert (cid, curl) == (parsed["id"], parsed["url"])
    # OsmemClone.request goes to the clone's URL with the same client
    st, _ = call(curl, "PUT", "/items/_doc/9?refresh=true", {"title": "clone"})
    assert st == 201
    assert count(curl) == 4
    assert count(s.url) == 3
    st, _ = call(s.url, "DELETE", f"/_osmem/clones/{cid}")
    assert st == 200
    assert refused(curl)


# ------------------------------------------------------------------ stop


def test_close_stdin_stops(start):
    """close(): stdin closed; the server (and its clones) must be gone within the 5 s grace."""
    s = start(seeds=[ITEMS], freeze=True)
    st, c = jcall(s.url, "POST", "/_osmem/clones")
    assert st == 201
    rc = s.close()
    assert rc is not None, f"still running {GRACE}s after stdin closed; stderr: {s.stderr()!r}"
    assert rc == 0, s.stderr()
    assert refused(s.url) and refused(c["url"])


def test_parent_pid_gone_stops(start):
    """--parent-pid names the helper's process: when it is gone the server exits, even
    with its stdin still open."""
    helper = subprocess.Popen(["sleep", str(TEST_LIMIT)])
    try:
        s = start(seeds=[ITEMS], parent_pid=helper.pid)
        assert count(s.url) == 3
        helper.kill()
        helper.wait()
        try:
            rc = s.proc.wait(timeout=GRACE)
        except subprocess.TimeoutExpired:
            pytest.fail(f"still running {GRACE}s after its parent pid exited; stderr: {s.stderr()!r}")
        assert rc == 0, s.stderr()
    finally:
        if helper.poll() is None:
            helper.kill()
            helper.wait()


HELPER_PROCESS = textwrap.dedent("""
    import os, subprocess, sys, time
    argv = [sys.argv[1], "--parent-pid", str(os.getpid()), "--seed", sys.argv[2]]
    p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    print(p.pid, p.stdout.readline().decode().strip(), flush=True)
    time.sleep(60)
""")


def test_killed_test_runner_leaves_no_server():
    """A test process using a helper dies (SIGKILL): its pipe closes and its pid goes away;
    the server it started must follow."""
    binary = trove_bin()
    if not os.path.exists(binary):
        pytest.skip(f"no trove binary at {binary} (set TROVE_BIN)")
    runner = subprocess.Popen([sys.executable, "-c", HELPER_PROCESS, binary, ITEMS],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    pid = None
    try:
        r, _, _ = select.select([runner.stdout], [], [], STARTUP)
        assert r, "the helper process printed nothing"
        line = runner.stdout.readline().decode().split(" ", 1)
        pid = int(line[0])
        ready = json.loads(line[1]) if len(line) > 1 and line[1].strip() else None
        assert ready and "url" in ready, ("no ready line", line, runner.stderr.read1().decode(errors="replace")
                                          if runner.poll() is not None else "")
        assert count(ready["url"]) == 3
        runner.kill()
        runner.wait()
        assert wait_gone(pid, GRACE), f"server {pid} outlived its killed parent by {GRACE}s"
    finally:
        if runner.poll() is None:
            runner.kill()
            runner.wait()
        if pid and not gone(pid):
            os.kill(pid, signal.SIGKILL)
        runner.stdout.close()
        runner.stderr.close()


# ------------------------------------------------- beyond the helpers


def test_osmem_management_answers(start):
    """Not used by the helpers, but osmem's documented management API, reachable through
    their request(): GET /_osmem, GET /_osmem/base, GET and DELETE of clones. All
    mismatches are reported at once."""
    s = start(seeds=[ITEMS], freeze=True)
    bad = []

    def check(what, cond):
        if not cond:
            bad.append(what)

    st, c = jcall(s.url, "POST", "/_osmem/clones")
    assert st == 201
    st, b = jcall(s.url, "GET", "/_osmem")
    check(f"GET /_osmem: 200 with version, frozen, clones (a number): got {st} {b}",
          st == 200 and isinstance(b.get("version"), str) and b.get("frozen") is True and b.get("clones") == 1)
    st, b = jcall(s.url, "GET", "/_osmem/base")
    check(f"GET /_osmem/base: 200 {{frozen, clones, indices}}: got {st} {b}",
          st == 200 and b.get("frozen") is True and b.get("clones") == 1
          and b.get("indices") == ["items", "logs-2024", "logs-other"])
    st, b = jcall(s.url, "GET", f"/_osmem/clones/{c['id']}")
    check(f"GET /_osmem/clones/ID: 200 with id and url: got {st} {b}",
          st == 200 and b.get("id") == c["id"] and b.get("url") == c["url"])
    st, b = jcall(s.url, "GET", "/_osmem/clones/nope")
    check(f"GET /_osmem/clones/nope: 404 osmem_clone_not_found: got {st} {b}",
          st == 404 and isinstance(b.get("error"), dict) and b["error"].get("type") == "osmem_clone_not_found")
    st, b = jcall(s.url, "DELETE", "/_osmem/clones")
    check(f"DELETE /_osmem/clones: 200 {{acknowledged, closed: 1}}: got {st} {b}",
          st == 200 and b.get("acknowledged") is True and b.get("closed") == 1)
    check("DELETE /_osmem/clones closes the clone's port", refused(c["url"]))
    assert not bad, "\n".join(bad)
