"""The /_trove management API over HTTP: a frozen base, clones on their own
loopback ports served by the server's event loops.

Run: /usr/bin/python3 -m pytest tests/api/test_trove_mgmt.py (TROVE_BIN
selects the binary).
"""
import json
import os
import pathlib
import socket
import time
import urllib.error
import urllib.request

import pytest

from conftest import refused

SEEDS = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "seed"


def call(url, method, path, body=None):
    data = None
    headers = {}
    if body is not None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    rq = urllib.request.Request(url + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(rq, timeout=10) as r:
            return r.status, json.loads(r.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


def count(url, index="items"):
    st, b = call(url, "GET", f"/{index}/_count")
    assert st == 200, b
    return b["count"]


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS")


def fds(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def threads(pid):
    return len(os.listdir(f"/proc/{pid}/task"))


@pytest.fixture
def base(make_server):
    return make_server("--threads", "2", "--seed", str(SEEDS / "items"))


def test_freeze_refuses_writes_reads_pass(base):
    u = base.url
    st, b = call(u, "GET", "/_trove")
    assert st == 200 and b["frozen"] is False and b["clones"]["count"] == 0 and b["version"]
    assert call(u, "POST", "/_trove/base/freeze") == (200, {"acknowledged": True, "frozen": True})
    n = count(u)
    for method, path, body in [
        ("PUT", "/items/_doc/100", {"title": "x"}),
        ("POST", "/items/_doc", {"title": "x"}),
        ("DELETE", "/items/_doc/1", None),
        ("POST", "/items/_update/1", {"doc": {"title": "y"}}),
        ("POST", "/_bulk", b'{"index":{"_index":"items"}}\n{"title":"z"}\n'),
        ("PUT", "/newindex", None),
        ("DELETE", "/items", None),
        ("POST", "/items/_delete_by_query", {"query": {"match_all": {}}}),
    ]:
        st, b = call(u, method, path, body)
        assert st == 403, (method, path, b)
        assert b["status"] == 403 and b["error"]["type"] == "trove_base_frozen"
        assert "frozen" in b["error"]["reason"]
    # reads and searches, POST ones included, pass
    st, b = call(u, "POST", "/items/_search", {"query": {"match": {"title": "scarf"}}})
    assert st == 200 and b["hits"]["total"]["value"] >= 1
    assert call(u, "GET", "/items/_doc/1")[1]["found"] is True
    assert count(u) == n
    # /_osmem is an alias; unfreezing lets writes in
    assert call(u, "GET", "/_osmem")[1]["frozen"] is True
    assert call(u, "POST", "/_osmem/base/unfreeze")[1]["frozen"] is False
    assert call(u, "PUT", "/items/_doc/100?refresh=true", {"title": "x"})[0] == 201
    assert count(u) == n + 1


def test_freeze_flag(make_server):
    s = make_server("--seed", str(SEEDS / "items"), "--freeze")
    assert call(s.url, "GET", "/_trove")[1]["frozen"] is True
    assert call(s.url, "PUT", "/items/_doc/100", {"title": "x"})[0] == 403
    assert count(s.url) == 3


def test_clones_are_isolated(base):
    u = base.url
    n = count(u)
    st, c1 = call(u, "POST", "/_trove/clones")
    assert st == 201 and c1["url"].startswith("http://127.0.0.1:") and c1["url"] != u
    st, c2 = call(u, "POST", "/_osmem/clones")
    assert st == 201 and c2["id"] != c1["id"] and c2["url"] != c1["url"]
    # the base is frozen now, the clones are not
    assert call(u, "GET", "/_trove")[1]["frozen"] is True
    assert call(u, "PUT", "/items/_doc/100", {"title": "x"})[0] == 403
    assert count(c1["url"]) == n
    assert call(c1["url"], "PUT", "/items/_doc/100?refresh=true", {"title": "clone one"})[0] == 201
    assert call(c2["url"], "DELETE", "/items/_doc/1?refresh=true")[0] == 200
    assert count(c1["url"]) == n + 1
    assert count(c2["url"]) == n - 1
    assert count(u) == n
    assert call(u, "GET", "/items/_doc/100")[0] == 404
    # listing and lookup
    st, b = call(u, "GET", "/_trove/clones")
    assert st == 200 and sorted(c["id"] for c in b["clones"]) == sorted([c1["id"], c2["id"]])
    assert call(u, "GET", "/_trove/clones/" + c1["id"]) == (200, c1)
    assert call(u, "GET", "/_trove")[1]["clones"]["count"] == 2
    # delete one: its port refuses, the other still answers
    assert call(u, "DELETE", "/_trove/clones/" + c1["id"]) == (200, {"acknowledged": True})
    assert refused(c1["url"])
    assert call(u, "GET", "/_trove/clones/" + c1["id"])[0] == 404
    assert call(u, "DELETE", "/_trove/clones/" + c1["id"])[0] == 404
    assert count(c2["url"]) == n - 1
    assert call(u, "DELETE", "/_trove/clones") == (200, {"acknowledged": True, "deleted": 1})
    assert refused(c2["url"])
    assert call(u, "GET", "/_trove")[1]["clones"]["count"] == 0


def test_open_connection_to_a_deleted_clone_is_closed(base):
    u = base.url
    st, c = call(u, "POST", "/_trove/clones")
    host, port = c["url"][len("http://"):].rsplit(":", 1)
    s = socket.create_connection((host, int(port)), timeout=5)
    s.sendall(b"GET /items/_count HTTP/1.1\r\nHost: x\r\n\r\n")
    assert b"200 OK" in s.recv(65536)
    assert call(u, "DELETE", "/_trove/clones/" + c["id"])[0] == 200
    s.sendall(b"GET /items/_count HTTP/1.1\r\nHost: x\r\n\r\n")
    try:
        got = s.recv(65536)
    except ConnectionResetError:
        got = b""
    s.close()
    assert got == b""


def test_hundred_clones_cost_little_and_no_threads(base):
    u = base.url
    pid = base.proc.pid
    call(u, "POST", "/_trove/base/freeze")
    # warm up: one clone made and removed, so lazily allocated state exists
    st, c = call(u, "POST", "/_trove/clones")
    count(c["url"])
    call(u, "DELETE", "/_trove/clones")
    t0, r0, f0 = threads(pid), rss_kib(pid), fds(pid)
    clones = [call(u, "POST", "/_trove/clones")[1] for _ in range(100)]
    assert len({c["url"] for c in clones}) == 100
    for c in clones[::10]:
        assert count(c["url"]) == 3
    t1, r1 = threads(pid), rss_kib(pid)
    assert t1 == t0, "clones must not add threads"
    delta = r1 - r0
    print(f"RSS delta for 100 clones: {delta} KiB ({delta / 100:.1f} KiB each)")
    assert delta < 4096, f"100 clones cost {delta} KiB"
    assert call(u, "DELETE", "/_trove/clones") == (200, {"acknowledged": True, "deleted": 100})
    assert refused(clones[0]["url"])
    assert threads(pid) == t0
    # deleted listeners give their descriptors back once every loop has
    # moved on (each loop wakes at least once a second); a later clone
    # operation reaps them. On a loaded machine a loop can wake late, so
    # try for a few seconds before calling it a leak.
    deadline = time.monotonic() + 6
    while True:
        time.sleep(1.2)
        call(u, "POST", "/_trove/clones")
        call(u, "DELETE", "/_trove/clones")
        if fds(pid) <= f0 + 1 or time.monotonic() > deadline:
            break
    assert fds(pid) <= f0 + 1, (fds(pid), f0)


def test_a_clone_can_be_cloned(base):
    """A clone is a full node: its own POST /_trove/clones gives a clone of it (with what was
    written to it), on its own port, isolated both ways; deleting the parent closes it."""
    st, c = call(base.url, "POST", "/_trove/clones")
    assert st == 201
    assert call(c["url"], "PUT", "/items/_doc/in-c?refresh=true", {"title": "c"})[0] == 201
    st, g = call(c["url"], "POST", "/_trove/clones")
    assert st == 201 and g["url"] not in (c["url"], base.url)
    assert count(g["url"]) == 4  # the seed's 3 and the parent's write
    assert call(g["url"], "PUT", "/items/_doc/in-g?refresh=true", {"title": "g"})[0] == 201
    assert count(g["url"]) == 5 and count(c["url"]) == 4 and count(base.url) == 3
    # the parent clone is frozen by its clone, as the base is by its own
    assert call(c["url"], "PUT", "/items/_doc/x", {"title": "x"})[0] == 403
    assert call(c["url"], "GET", "/_trove/clones")[1]["clones"] == [g]
    assert call(base.url, "DELETE", "/_trove/clones/" + c["id"])[0] == 200
    deadline = time.monotonic() + 5
    while not refused(g["url"]) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert refused(g["url"]), "a deleted clone's own clones close with it"
