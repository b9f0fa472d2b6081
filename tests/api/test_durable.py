"""`trove serve --data DIR` over HTTP: a second server on the same directory
is refused; a full disk refuses writes with an OpenSearch-shaped error while
reads go on, writes resume when space returns, and after a kill -9 every
acknowledged document is back; `trove check` tells clean from corrupt; `trove
dump` and `trove load` carry an index to another directory (and the dump is a
seed). (tests/crash/crash_loop.py is the torture.)

The disk-full test needs a small filesystem of its own: a 2 MiB tmpfs,
mounted for the test (root only; it is skipped, saying why, elsewhere).
"""
import json
import os
import signal
import subprocess
import tempfile

import pytest
import requests

from conftest import Server, trove_bin

J = {"content-type": "application/json"}


def test_second_server_on_the_same_directory_is_refused(make_server, tmp_path):
    make_server("--data", str(tmp_path))
    p = subprocess.run([trove_bin(), "serve", "--port", "0", "--data", str(tmp_path)],
                       stdin=subprocess.DEVNULL, capture_output=True, timeout=20)
    assert p.returncode == 1
    assert b"failed to obtain node locks, tried [" in p.stderr


@pytest.fixture
def small_fs():
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    d = tempfile.mkdtemp(prefix="trove-full-")
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", d], capture_output=True)
    if r.returncode != 0:
        os.rmdir(d)
        pytest.skip("cannot mount a tmpfs here: %s" % r.stderr.decode().strip())
    yield d
    subprocess.run(["umount", "-l", d])
    os.rmdir(d)


def test_full_disk_refuses_writes_and_loses_nothing(make_server, small_fs):
    data = os.path.join(small_fs, "data")
    filler = os.path.join(small_fs, "filler")
    with open(filler, "wb") as f:  # most of the space, given back later
        f.write(b"\0" * (1200 * 1024))
    s = make_server("--data", data)
    u = s.url
    assert requests.put(u + "/full", headers=J, json={"mappings": {"properties": {"t": {"type": "text"}}}}).ok
    body = "x" * 8000
    acked, refused = [], None
    for i in range(400):  # 3.2 MB of sources: more than the disk holds
        r = requests.put(u + "/full/_doc/%d" % i, headers=J, json={"t": body, "i": i})
        if r.status_code == 500:
            refused = (i, r.json())
            break
        assert r.status_code == 201, r.text
        acked.append(i)
    assert refused, "the disk never filled"
    i, err = refused
    assert err["status"] == 500
    assert err["error"]["type"] == "io_exception"
    assert "No space left on device" in err["error"]["reason"]
    assert acked, "nothing fit before the disk filled"
    # refused means not applied; reads go on
    assert requests.get(u + "/full/_doc/%d" % i).status_code == 404
    assert requests.get(u + "/full/_doc/%d" % acked[-1]).json()["found"] is True
    requests.post(u + "/full/_refresh")
    assert requests.get(u + "/full/_count").json()["count"] == len(acked)
    # a bulk on a full disk: the items that cannot be logged fail, one by one
    nd = "".join(json.dumps({"index": {"_index": "full", "_id": "b%d" % k}}) + "\n" +
                 json.dumps({"t": body}) + "\n" for k in range(3))
    r = requests.post(u + "/_bulk", headers={"content-type": "application/x-ndjson"}, data=nd)
    assert r.status_code == 200 and r.json()["errors"] is True
    assert all(next(iter(it.values()))["status"] == 500 for it in r.json()["items"])
    # space comes back: writes resume
    os.unlink(filler)
    r = requests.put(u + "/full/_doc/%d" % i, headers=J, json={"t": "after", "i": i})
    assert r.status_code == 201, r.text
    acked.append(i)
    # and after a crash, everything acknowledged is there
    s.stop(signal.SIGKILL)
    s2 = make_server("--data", data)
    requests.post(s2.url + "/full/_refresh")
    assert requests.get(s2.url + "/full/_count").json()["count"] == len(acked)
    got = requests.get(s2.url + "/full/_doc/%d" % i).json()
    assert got["_source"] == {"t": "after", "i": i}
    assert requests.get(s2.url + "/full/_doc/b0").status_code == 404


def test_check_reports_clean_and_corrupt(make_server, tmp_path):
    s = make_server("--data", str(tmp_path))
    for i in range(3):
        assert requests.put(s.url + "/c/_doc/%d" % i, headers=J, json={"n": i}).status_code == 201
    p = subprocess.run([trove_bin(), "check", str(tmp_path)], capture_output=True, timeout=60)
    assert p.returncode == 1 and b"failed to obtain node locks" in p.stderr  # in use
    s.stop(signal.SIGKILL)
    p = subprocess.run([trove_bin(), "check", str(tmp_path)], capture_output=True, timeout=60)
    assert p.returncode == 0, p.stdout + p.stderr
    assert b"index [c]" in p.stdout and b"3 writes" in p.stdout and b"3 documents" in p.stdout
    assert b"clean" in p.stdout
    (tl,) = tmp_path.glob("indices/*/translog.tlog")
    b = bytearray(tl.read_bytes())
    b[30] ^= 0x10  # inside the first record, with two more after it
    tl.write_bytes(bytes(b))
    p = subprocess.run([trove_bin(), "check", str(tmp_path)], capture_output=True, timeout=60)
    assert p.returncode == 1
    assert b"CORRUPT" in p.stdout and b"NOT CLEAN" in p.stdout
    assert tl.read_bytes() == bytes(b)  # check changes nothing
    p = subprocess.run([trove_bin(), "check", str(tmp_path / "missing")], capture_output=True, timeout=60)
    assert p.returncode == 1 and b"no data directory" in p.stderr
    assert not (tmp_path / "missing").exists()


def test_dump_and_load_round_trip(make_server, tmp_path):
    data, out, data2 = tmp_path / "data", tmp_path / "out", tmp_path / "data2"
    s = make_server("--data", str(data))
    assert requests.put(s.url + "/books", headers=J, json={
        "settings": {"number_of_replicas": 0,
                     "analysis": {"analyzer": {"a": {"type": "standard", "stopwords": ["x"]}}}},
        "mappings": {"properties": {"t": {"type": "text", "analyzer": "a"}, "y": {"type": "integer"}}}}).ok
    nd = "".join('{"index":{"_id":"%d"}}\n{"t":"book %d x","y":%d}\n' % (i, i, i) for i in range(2345))
    assert requests.post(s.url + "/books/_bulk", headers={"content-type": "application/x-ndjson"}, data=nd).ok
    assert requests.put(s.url + "/books/_doc/r?routing=abc", headers=J, json={"t": "routed"}).ok
    assert requests.delete(s.url + "/books/_doc/7").ok
    mapping = requests.get(s.url + "/books/_mapping").json()
    # a running server's directory is refused; its URL is not
    p = subprocess.run([trove_bin(), "dump", "books", "--data", str(data), "--out", str(out)],
                       capture_output=True, timeout=60)
    assert p.returncode == 1 and b"failed to obtain node locks" in p.stderr
    url_out = tmp_path / "by-url"
    p = subprocess.run([trove_bin(), "dump", "books", "--url", s.url, "--out", str(url_out)],
                       capture_output=True, timeout=120)
    assert p.returncode == 0, p.stderr
    s.stop(signal.SIGTERM)
    p = subprocess.run([trove_bin(), "dump", "books", "--data", str(data), "--out", str(out)],
                       capture_output=True, timeout=120)
    assert p.returncode == 0, p.stderr
    meta = json.loads((out / "books.index.json").read_text())
    assert "index.uuid" not in meta["settings"] and "index.creation_date" not in meta["settings"]
    assert meta["mappings"] == mapping["books"]["mappings"]
    assert (url_out / "books.ndjson").read_bytes() == (out / "books.ndjson").read_bytes()
    assert (url_out / "books.index.json").read_bytes() == (out / "books.index.json").read_bytes()
    lines = (out / "books.ndjson").read_text().splitlines()
    assert len(lines) == 2 * 2345  # 2,344 + the routed one, without the deleted one
    assert '{"index":{"_id":"r","routing":"abc"}}' in lines
    p = subprocess.run([trove_bin(), "load", str(out), "--data", str(data2)], capture_output=True, timeout=120)
    assert p.returncode == 0, p.stderr
    s2 = make_server("--data", str(data2))
    assert requests.get(s2.url + "/books/_count").json()["count"] == 2345
    assert requests.get(s2.url + "/books/_mapping").json() == mapping
    assert requests.get(s2.url + "/books/_doc/r?routing=abc").json()["_source"] == {"t": "routed"}
    assert requests.get(s2.url + "/books/_doc/7").status_code == 404
    # the stopword analyzer came along: "x" is not searchable
    assert requests.get(s2.url + "/books/_count?q=t:x").json()["count"] == 0
    # and a dump is a seed: trove serve --seed loads it unchanged
    s3 = make_server("--seed", str(out))
    assert requests.get(s3.url + "/books/_count").json()["count"] == 2345


def test_nested_blocks_survive_a_kill_and_a_commit(make_server, tmp_path):
    """Doc blocks on disk: committed segments (with their NESTED section and
    roots-only live bits) and translog records replayed after kill -9 give
    the same nested answers and Lucene's document counts; `trove check`
    reads them clean."""
    s = make_server("--data", str(tmp_path))
    assert requests.put(s.url + "/o", headers=J, json={"mappings": {"properties": {
        "k": {"type": "keyword"},
        "lines": {"type": "nested", "properties": {"sku": {"type": "keyword"}, "qty": {"type": "integer"}}}}}}).ok
    for i in range(40):
        lines = [{"sku": "s%d" % ((i + j) % 5), "qty": j} for j in range(i % 4)]
        assert requests.put(s.url + "/o/_doc/%d" % i, headers=J, json={"k": str(i), "lines": lines}).status_code == 201
    assert requests.post(s.url + "/o/_flush").ok  # these 40 go to segment files
    assert requests.delete(s.url + "/o/_doc/3").ok  # a committed block deleted
    assert requests.put(s.url + "/o/_doc/5", headers=J,
                        json={"k": "5", "lines": [{"sku": "s9", "qty": 9}]}).ok  # one replaced
    assert requests.put(s.url + "/o/_doc/40", headers=J,
                        json={"k": "40", "lines": [{"sku": "s9", "qty": 1}, {"sku": "s0", "qty": 2}]}).ok

    def answers(url):
        requests.post(url + "/o/_refresh")
        q = {"size": 100, "sort": [{"k": "asc"}], "_source": False,
             "query": {"nested": {"path": "lines", "query": {"term": {"lines.sku": "s9"}}, "inner_hits": {}}}}
        r = requests.post(url + "/o/_search", headers=J, json=q).json()
        hits = [(h["_id"], [x["_nested"]["offset"] for x in h["inner_hits"]["lines"]["hits"]["hits"]])
                for h in r["hits"]["hits"]]
        a = requests.post(url + "/o/_search", headers=J, json={"size": 0, "aggs": {"l": {
            "nested": {"path": "lines"}, "aggs": {"q": {"sum": {"field": "lines.qty"}}}}}}).json()
        count = requests.get(url + "/o/_count").json()["count"]
        cat = requests.get(url + "/_cat/indices/o?h=docs.count").text.strip()
        return hits, a["aggregations"]["l"]["doc_count"], a["aggregations"]["l"]["q"]["value"], count, cat

    before = answers(s.url)
    # lines: i % 4 per doc for 40 docs = 60; doc 3 had 3, doc 5 had 1 -> 1, doc 40 has 2
    assert before[0] == [("40", [0]), ("5", [0])]
    assert before[1] == 60 - 3 - 1 + 1 + 2
    assert before[3] == 40  # 40 roots: 0..39 without 3, with 40
    assert before[4] == str(40 + before[1])  # roots plus their nested docs
    s.stop(signal.SIGKILL)
    p = subprocess.run([trove_bin(), "check", str(tmp_path)], capture_output=True, timeout=60)
    assert p.returncode == 0, p.stdout + p.stderr
    s2 = make_server("--data", str(tmp_path))
    assert answers(s2.url) == before
    assert requests.post(s2.url + "/o/_forcemerge?max_num_segments=1").ok
    assert requests.post(s2.url + "/o/_flush").ok
    assert answers(s2.url) == before
