"""Tests of trove_fixture, using Debian's python3-requests as the client.

Run: PYTHONPATH=sdk/python TROVE_BIN=build/trove \
     python3 -m pytest -p trove_fixture.pytest_plugin sdk/python/tests
"""

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from trove_fixture import TroveError, TroveServer, find_binary

HERE = os.path.dirname(os.path.abspath(__file__))
SEEDS = os.path.normpath(os.path.join(HERE, "..", "..", "..", "tests", "fixtures", "seed"))


def count(url, index="items", q=None):
    body = {"query": q} if q else None
    r = requests.post("%s/%s/_count" % (url, index), json=body, timeout=10)
    r.raise_for_status()
    return r.json()["count"]


def pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie still answers kill(0); look at its state
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def test_ready_line_fields(trove_server):
    assert trove_server.url.startswith("http://127.0.0.1:")
    port = int(trove_server.url.rsplit(":", 1)[1])
    assert 0 < port < 65536
    assert trove_server.pid == trove_server._proc.pid
    assert isinstance(trove_server.version, str) and trove_server.version
    assert {"items", "logs-2024", "logs-other"} <= set(trove_server.indices)
    r = requests.get(trove_server.url + "/", timeout=10)
    assert r.status_code == 200
    assert r.json()["version"]["distribution"] == "opensearch"


def test_seeded_data_visible(trove_server):
    assert count(trove_server.url) == 3
    r = requests.get(trove_server.url + "/items/_doc/2", timeout=10)
    assert r.status_code == 200
    assert r.json()["_source"]["title"] == "Blue ceramic mug"
    # the seed's alias and template were applied too
    assert count(trove_server.url, "shop", {"term": {"category": "kitchen"}}) == 2
    assert count(trove_server.url, "logs") == 2


def test_clone_fixture_is_writable_and_private(trove_server, trove_clone):
    assert trove_clone != trove_server.url
    assert count(trove_clone) == 3
    r = requests.put(trove_clone + "/items/_doc/9?refresh=true",
                     json={"title": "Green glass vase", "category": "home", "price": 12.0},
                     timeout=10)
    assert r.status_code == 201, r.text
    assert count(trove_clone) == 4
    assert count(trove_server.url) == 3


def test_clone_deleted_after_context(trove_server):
    with trove_server.clone() as url:
        assert requests.get(url + "/items/_count", timeout=10).json()["count"] == 3
        clones = requests.get(trove_server.url + "/_trove/clones", timeout=10).json()
        assert url in json.dumps(clones)
    clones = requests.get(trove_server.url + "/_trove/clones", timeout=10).json()
    assert url not in json.dumps(clones)
    with pytest.raises(requests.ConnectionError):
        requests.get(url + "/items/_count", timeout=2)


def test_parallel_clones_see_only_their_own_writes(trove_server):
    workers = 8

    def job(n):
        with trove_server.clone() as url:
            s = requests.Session()
            for i in range(5):
                r = s.put("%s/items/_doc/w%d-%d" % (url, n, i),
                          json={"title": "worker %d item %d" % (n, i), "category": "w%d" % n,
                                "price": n + i / 10.0},
                          timeout=10)
                assert r.status_code == 201, r.text
            s.post(url + "/items/_refresh", timeout=10).raise_for_status()
            total = count(url)
            mine = count(url, q={"term": {"category": "w%d" % n}})
            others = count(url, q={"prefix": {"category": "w"}})
            r = s.delete(url + "/items/_doc/1?refresh=true", timeout=10)
            assert r.status_code == 200, r.text
            after_delete = count(url)
            return total, mine, others, after_delete

    with ThreadPoolExecutor(workers) as pool:
        results = list(pool.map(job, range(workers)))
    for n, (total, mine, others, after_delete) in enumerate(results):
        assert (total, mine, others, after_delete) == (8, 5, 5, 7), (n, results)
    # the base kept its seed: no worker's write or delete leaked into it
    assert count(trove_server.url) == 3
    assert requests.get(trove_server.url + "/items/_doc/1", timeout=10).status_code == 200


def test_base_frozen_once_cloned(trove_server, trove_clone):
    r = requests.put(trove_server.url + "/items/_doc/99", json={"title": "nope"}, timeout=10)
    assert r.status_code == 403
    assert r.json()["error"]["type"] == "trove_base_frozen"
    r = requests.put(trove_server.url + "/another-index", timeout=10)
    assert r.status_code == 403
    assert count(trove_server.url) == 3


def test_freeze_flag_freezes_before_any_clone():
    with TroveServer.start(seed=os.path.join(SEEDS, "single.ndjson"), freeze=True) as server:
        r = requests.post(server.url + "/items/_doc", json={"title": "x"}, timeout=10)
        assert r.status_code == 403, r.text


def test_unseeded_server_and_explicit_binary(tmp_path):
    with TroveServer.start(binary=find_binary()) as server:
        assert server.indices == []
        r = requests.put(server.url + "/fresh", timeout=10)
        assert r.status_code == 200, r.text


def test_bad_seed_fails_with_server_message():
    with pytest.raises(TroveError) as info:
        TroveServer.start(seed=os.path.join(SEEDS, "bad"))
    msg = str(info.value)
    assert "items.ndjson:4" in msg
    assert "mapper_parsing_exception" in msg


def test_missing_binary_is_reported(monkeypatch):
    monkeypatch.setenv("TROVE_BIN", "/nonexistent/trove")
    with pytest.raises(TroveError, match="/nonexistent/trove"):
        TroveServer.start()


def test_close_stops_server():
    server = TroveServer.start(seed=os.path.join(SEEDS, "items3"))
    pid = server.pid
    assert pid_alive(pid)
    assert server.close() == 0
    assert not server.running
    assert not pid_alive(pid)
    with pytest.raises(requests.ConnectionError):
        requests.get(server.url + "/", timeout=2)


def test_context_manager_stops_server():
    with TroveServer.start() as server:
        pid = server.pid
        assert server.running
    assert not pid_alive(pid)


def test_server_exits_with_the_python_process(tmp_path):
    # A child Python starts a server and is then killed without cleanup: the
    # server notices its parent is gone (--parent-pid / stdin EOF) and exits.
    script = textwrap.dedent("""
        import os, sys, time
        sys.path.insert(0, %r)
        from trove_fixture import TroveServer
        s = TroveServer.start()
        print(s.pid, flush=True)
        time.sleep(60)
    """ % os.path.dirname(HERE))
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE)
    try:
        pid = int(child.stdout.readline())
        assert pid_alive(pid)
        child.send_signal(signal.SIGKILL)
        child.wait(5)
        deadline = time.monotonic() + 5
        while pid_alive(pid) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert not pid_alive(pid)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()


def fake_binary(tmp_path, body):
    path = tmp_path / "fake-trove"
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(0o755)
    return str(path)


def test_start_timeout_reports_stderr(tmp_path):
    exe = fake_binary(tmp_path, 'echo "warming up" >&2; exec sleep 30')
    t0 = time.monotonic()
    with pytest.raises(TroveError) as info:
        TroveServer.start(binary=exe, timeout=0.5)
    assert time.monotonic() - t0 < 5
    assert "no ready line within 0.5 s" in str(info.value)
    assert "warming up" in str(info.value)


def test_start_reports_exit_status_and_unreadable_line(tmp_path):
    exe = fake_binary(tmp_path, 'echo "boom: $*" >&2; exit 3')
    with pytest.raises(TroveError) as info:
        TroveServer.start(binary=exe, seed=["a", "b"], freeze=True, args=["--no-ja"])
    msg = str(info.value)
    assert "exited with status 3" in msg
    assert "boom: serve --port 0 --ready-json --parent-pid %d --seed a --seed b --freeze --no-ja" \
        % os.getpid() in msg
    exe = fake_binary(tmp_path, 'echo "not json"; exec sleep 30')
    with pytest.raises(TroveError, match="unreadable ready line"):
        TroveServer.start(binary=exe, timeout=5)


def test_plugin_ini_options(tmp_path):
    # A project of its own: seeds and binary come from its pytest.ini, paths
    # relative to its rootdir; the clone fixture is fresh for every test.
    os.symlink(SEEDS, str(tmp_path / "seeds"))
    os.symlink(find_binary(), str(tmp_path / "trove-bin"))
    (tmp_path / "pytest.ini").write_text(textwrap.dedent("""
        [pytest]
        trove_seed =
            seeds/items3
            seeds/single.ndjson
        trove_bin = ./trove-bin
    """))
    (tmp_path / "test_user.py").write_text(textwrap.dedent("""
        import json, urllib.request

        def get(url):
            return json.load(urllib.request.urlopen(url))

        def put(url, doc):
            req = urllib.request.Request(url, data=json.dumps(doc).encode(), method="PUT",
                                         headers={"Content-Type": "application/json"})
            return urllib.request.urlopen(req).status

        def test_one(trove_server, trove_clone):
            assert sorted(trove_server.indices) == ["books", "films", "items"]
            assert put(trove_clone + "/items/_doc/x?refresh=true", {"title": "t"}) == 201
            assert get(trove_clone + "/items/_count")["count"] == 4

        def test_two(trove_clone):
            assert get(trove_clone + "/items/_count")["count"] == 3
    """))
    env = dict(os.environ, PYTHONPATH=os.path.dirname(HERE), PYTHONDONTWRITEBYTECODE="1")
    env.pop("TROVE_BIN", None)
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        "-p", "trove_fixture.pytest_plugin", str(tmp_path)],
                       cwd=str(tmp_path), env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=60)
    out = r.stdout.decode()
    assert r.returncode == 0, out
    assert "2 passed" in out, out
