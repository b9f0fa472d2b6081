"""
test_yamlrest.py — tests of the YAML REST runner itself (not of trove).

The value semantics (Java toString/equals, regexes, versions, paths, stash)
are tested as functions; request building, catch/match/skip handling and the
expected-failures bookkeeping are tested end to end against a small scripted
HTTP server that records what it receives. Run: python3 -m pytest tests/compat
"""

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import yamlrest as y  # noqa: E402


# ------------------------------------------------------------- value semantics

def test_java_double_str_matches_double_tostring():
    assert y.java_double_str(1.0) == "1.0"
    assert y.java_double_str(0.001) == "0.001"
    assert y.java_double_str(1e-4) == "1.0E-4"
    assert y.java_double_str(1234567.0) == "1234567.0"
    assert y.java_double_str(12345678.0) == "1.2345678E7"
    assert y.java_double_str(-2.5e-7) == "-2.5E-7"
    assert y.java_double_str(1.5e20) == "1.5E20"


def test_java_str_of_an_error_object():
    err = {"root_cause": [{"type": "x", "reason": "r"}], "status": 400, "f": 1.0, "b": True, "n": None}
    assert y.java_str(err) == "{root_cause=[{type=x, reason=r}], status=400, f=1.0, b=true, n=null}"


def test_java_equals_is_strict_about_number_types_and_booleans():
    assert y.java_equals({"a": [1, 2]}, {"a": [1, 2]})
    assert not y.java_equals({"a": 1}, {"a": 1.0})
    assert not y.java_equals({"a": True}, {"a": 1})
    assert y.java_equals({"a": 1, "b": 2}, {"b": 2, "a": 1})
    assert not y.java_equals([1, 2], [2, 1])
    assert not y.java_equals({"a": 1}, {"a": 1, "b": None})


def test_versions_order_legacy_elasticsearch_before_opensearch():
    assert not y.in_ranges(y.parse_version_ranges(" - 6.99.99"))
    assert not y.in_ranges(y.parse_version_ranges(" - 2.99.99"))
    assert y.in_ranges(y.parse_version_ranges("7.2.0 - "))  # up to CURRENT = 3.1.0
    assert y.in_ranges(y.parse_version_ranges("all"))
    assert y.in_ranges(y.parse_version_ranges(" - 3.1.99"))
    assert not y.in_ranges(y.parse_version_ranges(" - 3.0.99"))
    assert not y.in_ranges(y.parse_version_ranges("- 3.0.99, 3.7.0 - "))
    assert y.in_ranges(y.parse_version_ranges("3.1.0 - 3.6.99"))
    with pytest.raises(y.SuiteError):
        y.parse_version_ranges("1.2 - 3")


def test_skip_features():
    assert y.skip_reason({"skip": {"features": ["headers", "contains"]}}) is None
    assert "made_up" in y.skip_reason({"skip": {"features": "headers, made_up"}})
    assert y.skip_reason({"skip": {"version": " - 6.99.99", "reason": "old"}}) is None
    assert "new" in y.skip_reason({"skip": {"version": " - 3.99.99", "reason": "new"}})


def test_paths_escape_dots_and_index_lists():
    assert y.parse_path(r"a.b\.c.0") == ["a", "b.c", "0"]
    doc = {"hits": {"hits": [{"_id": "1"}, {"_id": "2"}]}, "a.b": 3}
    assert y.evaluate_path(doc, "hits.hits.1._id", None) == "2"
    assert y.evaluate_path(doc, r"a\.b", None) == 3
    assert y.evaluate_path(doc, "hits.nope.x", None) is None
    assert y.evaluate_path(doc, "", None) is doc
    with pytest.raises(y.TestFailure):
        y.evaluate_path(doc, "hits.hits.5", None)
    assert y.evaluate_path({"nodes": {"abc": 1}}, "nodes._arbitrary_key_", None) == "abc"


def test_stash_references():
    st = y.Stash()
    st.values = {"body": {"_id": "x1", "n": 3}, "id": "x1"}
    assert st.get("$id") == "x1"
    assert st.get("$body._id") == "x1"
    assert st.get("id is ${id}, n=${body.n}") == "id is x1, n=3"
    assert st.replace({"q": "$id", "$id": ["${id}!", 1]}) == {"q": "x1", "x1": ["x1!", 1]}
    assert y.evaluate_path({"x1": {"v": 5}}, "$id.v", st) == 5
    with pytest.raises(y.SuiteError):
        st.get("$missing")


def test_regexes_follow_java():
    # COMMENTS flag: whitespace (also inside classes) and #-comments ignored
    assert y.java_regex(r"^ a \s+ b [ 0-9 ]+ $ # comment", comments=True).search("a   b42")
    assert not y.java_regex(r"^ a \s+ b [ 0-9 ]+ $ # comment", comments=True).search("a   b 42")
    assert y.java_regex(r"\Qa.b[c]\E$").search("xa.b[c]")
    assert not y.java_regex(r"\Qa.b\E").search("axb")
    assert y.java_regex(r"^foo\z").search("foo")
    assert y.java_regex(r"\p{Alpha}+").search("abc")


def test_yaml_scalars_as_jackson_reads_them():
    doc = y.load_yaml_stream("a: 2017-01-01\nb: yes\nc: true\nd: 1.5\ne: 12\nf: null\n")[0]
    assert doc == {"a": "2017-01-01", "b": "yes", "c": True, "d": 1.5, "e": 12, "f": None}


def test_bodies_as_dosection_parses_them():
    assert y.parse_bodies({"a": 1}) == [{"a": 1}]
    assert y.parse_bodies('{"a":1}\n{"b":2}\n') == [{"a": 1}, {"b": 2}]
    assert y.parse_bodies(['{"index":{}}', {"f": 1}]) == [{"index": {}}, {"f": 1}]
    assert y.parse_bodies(None) == []


def test_expected_failures_file_format(tmp_path):
    f = tmp_path / "x.txt"
    f.write_text("# comment\n\na/b.yml :: Test one  # it fails\na/c.yml\n")
    assert y.read_list_file(f) == {"a/b.yml :: Test one": "it fails", "a/c.yml": ""}


# ------------------------------------------------------------ scripted server

class FakeNode(BaseHTTPRequestHandler):
    """A few OpenSearch answers; records every request in .log."""
    protocol_version = "HTTP/1.1"
    wbufsize = 1 << 16  # one write per response (no Nagle/delayed-ACK stalls)
    indices = {}
    log = []

    def log_message(self, *a):
        pass

    def reply(self, status, obj=None, ctype="application/json; charset=UTF-8", extra=()):
        data = b"" if obj is None else (obj if isinstance(obj, bytes) else json.dumps(obj).encode())
        self.send_response(status)
        if obj is not None:
            self.send_header("Content-Type", ctype)
        for k, v in extra:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)
        self.wfile.flush()

    def error(self, status, typ, reason):
        self.reply(status, {"error": {"root_cause": [{"type": typ, "reason": reason}],
                                      "type": typ, "reason": reason}, "status": status})

    def handle_any(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n) if n else b""
        path, _, query = self.path.partition("?")
        FakeNode.log.append({"method": self.command, "path": path, "query": query,
                             "ctype": self.headers.get("Content-Type"), "body": body.decode(),
                             "headers": dict(self.headers)})
        segs = [s for s in path.split("/") if s]
        if path == "/" and self.command == "GET":
            return self.reply(200, {"version": {"number": "3.1.0"}})
        if path == "/*" and self.command == "DELETE":
            FakeNode.indices.clear()
            return self.reply(200, {"acknowledged": True})
        if path == "/_all" and self.command == "GET":
            return self.reply(200, {k: {} for k in FakeNode.indices})
        if path == "/_cat/indices":
            return self.reply(200, "".join(f"green open {k}\n" for k in FakeNode.indices).encode(),
                              ctype="text/plain; charset=UTF-8")
        if path == "/echo":
            return self.reply(200, FakeNode.log[-1])
        if path == "/warn":
            return self.reply(200, {"ok": True},
                              extra=[("Warning", '299 OpenSearch-3.1.0 "this is deprecated"')])
        if segs and (segs[0].startswith("_") or segs[-1] == "_bulk"):
            return self.reply(200, {"acknowledged": True})
        if len(segs) == 1:
            name = segs[0]
            if self.command == "PUT":
                if name in FakeNode.indices:
                    return self.error(400, "resource_already_exists_exception",
                                      f"index [{name}/uuid] already exists")
                FakeNode.indices[name] = {}
                return self.reply(200, {"acknowledged": True, "index": name})
            if self.command == "HEAD":
                return self.reply(200 if name in FakeNode.indices else 404)
        if len(segs) == 3 and segs[1] == "_doc":
            docs = FakeNode.indices.get(segs[0])
            if self.command == "PUT":
                FakeNode.indices.setdefault(segs[0], {})[segs[2]] = json.loads(body)
                return self.reply(201, {"_index": segs[0], "_id": segs[2], "_version": 1,
                                        "result": "created"})
            if self.command == "GET":
                if docs is None or segs[2] not in docs:
                    return self.reply(404, {"_index": segs[0], "_id": segs[2], "found": False})
                return self.reply(200, {"_index": segs[0], "_id": segs[2], "found": True,
                                        "_version": 1, "_source": docs[segs[2]]})
        return self.error(400, "illegal_argument_exception",
                          f"no handler found for uri [{self.path}] and method [{self.command}]")

    do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = handle_any


@pytest.fixture()
def fake_node():
    FakeNode.indices = {}
    FakeNode.log = []
    srv = ThreadingHTTPServer(("127.0.0.1", 0), FakeNode)
    t = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{srv.server_address[1]}"
    srv.shutdown()
    srv.server_close()


SPECS = {
    "index": {"url": {"paths": [
        {"path": "/{index}/_doc", "methods": ["POST"], "parts": {"index": {}}},
        {"path": "/{index}/_doc/{id}", "methods": ["PUT", "POST"], "parts": {"index": {}, "id": {}}}]},
        "params": {"refresh": {}}, "body": {"required": True}},
    "get": {"url": {"paths": [
        {"path": "/{index}/_doc/{id}", "methods": ["GET"], "parts": {"index": {}, "id": {}}}]},
        "params": {"_source": {}}},
    "indices.create": {"url": {"paths": [
        {"path": "/{index}", "methods": ["PUT"], "parts": {"index": {}}}]}, "params": {},
        "body": {}},
    "indices.exists": {"url": {"paths": [
        {"path": "/{index}", "methods": ["HEAD"], "parts": {"index": {}}}]}, "params": {}},
    "cat.indices": {"url": {"paths": [
        {"path": "/_cat/indices", "methods": ["GET"]},
        {"path": "/_cat/indices/{index}", "methods": ["GET"], "parts": {"index": {}}}]},
        "params": {"h": {}, "v": {}}},
    "bulk": {"url": {"paths": [
        {"path": "/_bulk", "methods": ["POST", "PUT"]},
        {"path": "/{index}/_bulk", "methods": ["POST", "PUT"], "parts": {"index": {}}}]},
        "params": {"refresh": {}}, "body": {"required": True, "serialize": "bulk"}},
    "echo": {"url": {"paths": [{"path": "/echo", "methods": ["POST"]}]}, "params": {}, "body": {}},
    "warn": {"url": {"paths": [{"path": "/warn", "methods": ["GET"]}]}, "params": {}},
}


def make_compat(tmp_path, files, skip_txt=""):
    spec_dir = tmp_path / "compat" / "opensearch-rest-api-spec"
    test_dir = tmp_path / "compat" / "opensearch-rest-yaml"
    spec_dir.mkdir(parents=True)
    for name, spec in SPECS.items():
        (spec_dir / f"{name}.json").write_text(json.dumps({name: spec}))
    for rel, text in files.items():
        p = test_dir / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    (test_dir / "SKIP.txt").write_text(skip_txt)
    return tmp_path / "compat"


def run(capsys, compat, url, expected, *extra):
    rc = y.main(["--compat", str(compat), "--url", url, "--expected", str(expected), *extra])
    out = capsys.readouterr().out
    return rc, out


BASIC = """\
setup:
  - do:
      indices.create:
        index: test_1
---
"Index and get":
  - do:
      index:
        index: test_1
        id: 1
        body: { foo: bar, n: 1 }
  - match: { _id: "1" }
  - set: { _id: my_id }
  - do:
      get:
        index: test_1
        id: $my_id
  - match: { _source: { foo: bar, n: 1 } }
  - match: { _source.foo: /^b.r$/ }
  - match: { _version: 1.0 }
  - is_true: found
  - is_false: nothing_here
  - length: { _source: 2 }
  - gt: { _version: 0 }
  - lte: { _version: 1 }
  - match: { $body._id: "1" }
---
"Missing doc":
  - do:
      catch: missing
      get:
        index: test_1
        id: nope
  - match: { found: false }
---
"Catch regex on error":
  - do:
      catch: /already.exists/
      indices.create:
        index: test_1
  - match: { error.type: resource_already_exists_exception }
---
"Catch param sends nothing":
  - do:
      catch: param
      get:
        index: test_1
---
"Head is true or false":
  - do:
      indices.exists:
        index: test_1
  - is_true: ''
  - do:
      indices.exists:
        index: nope
  - is_false: ''
---
"Cat text body":
  - do:
      cat.indices: {}
  - match:
      $body: |
        /^green \\s open \\s test_1 \\n $/
"""


def test_passing_suite(tmp_path, capsys, fake_node):
    compat = make_compat(tmp_path, {"s/10_basic.yml": BASIC})
    rc, out = run(capsys, compat, fake_node, tmp_path / "exp.txt")
    assert "6 passed, 0 failed, 0 skipped" in out, out
    assert rc == 0
    # the wipe ran before/after tests, as the Java runner's
    wipes = [r for r in FakeNode.log if r["method"] == "DELETE" and r["path"] == "/*"]
    assert wipes and all("expand_wildcards=open,closed,hidden" in r["query"] for r in wipes)


FAILING = """\
"Wrong value":
  - do:
      indices.create:
        index: t
  - match: { index: u }
---
"Nested int is not a double":
  - do:
      index:
        index: t
        id: 1
        body: { n: 1 }
  - do:
      get: { index: t, id: 1 }
  - match: { _source: { n: 1.0 } }
---
"Unexpected error":
  - do:
      indices.create:
        index: t
  - do:
      indices.create:
        index: t
---
"Wrong catch":
  - do:
      catch: conflict
      get: { index: t, id: 9 }
---
"Unexpected warning":
  - do:
      warn: {}
---
"Allowed warning":
  - do:
      allowed_warnings:
        - "this is deprecated"
      warn: {}
---
"Skipped by version":
  - skip:
      version: " - 3.1.99"
      reason: "not yet"
  - do:
      warn: {}
---
"Skipped by feature":
  - skip:
      features: no_such_feature
  - do:
      warn: {}
"""


def test_failures_and_expected_list(tmp_path, capsys, fake_node):
    compat = make_compat(tmp_path, {"s/20_fail.yml": FAILING})
    exp = tmp_path / "exp.txt"
    rc, out = run(capsys, compat, fake_node, exp)
    assert rc == 1
    assert "1 passed, 5 failed, 2 skipped" in out, out
    assert 'FAIL s/20_fail.yml :: Wrong value  # match [index] expected "u", got "t"' in out
    assert "expected integer 1.0" not in out
    assert "[_source.n] expected double 1.0, got integer 1" in out
    assert "resource_already_exists_exception" in out
    assert "do get: 404 " not in out  # a plain 404 body has no error: summary is the body
    assert "got 404 {" in out and "expected 409 (catch conflict)" in out
    assert "unexpected warning header" in out
    assert "SKIP s/20_fail.yml :: Skipped by version  # version - 3.1.99: not yet" in out
    assert "unsupported runner feature no_such_feature" in out

    # bootstrap the list: now the same run passes
    rc, out = run(capsys, compat, fake_node, exp, "--update-expected")
    assert rc == 0
    listed = y.read_list_file(exp)
    assert len(listed) == 5 and "s/20_fail.yml :: Wrong value" in listed
    rc, out = run(capsys, compat, fake_node, exp)
    assert rc == 0, out

    # regenerating keeps a hand-written reason of a test that still fails
    exp.write_text(exp.read_text().replace(
        "s/20_fail.yml :: Wrong value  # ", "s/20_fail.yml :: Wrong value  # hand-written # "))
    rc, out = run(capsys, compat, fake_node, exp, "--update-expected")
    assert y.read_list_file(exp)["s/20_fail.yml :: Wrong value"].startswith("hand-written")

    # a listed test that passes is named; it fails the run only with --strict
    exp.write_text(exp.read_text() + "s/20_fail.yml :: Allowed warning  # stale\n")
    rc, out = run(capsys, compat, fake_node, exp)
    assert rc == 0
    assert "now pass; remove these lines:\n  s/20_fail.yml :: Allowed warning" in out
    rc, out = run(capsys, compat, fake_node, exp, "--strict")
    assert rc == 1

    # a listed test that no longer exists is reported too
    exp.write_text(exp.read_text().replace("Allowed warning  # stale", "Gone test  # old"))
    rc, out = run(capsys, compat, fake_node, exp)
    assert rc == 0 and "s/20_fail.yml :: Gone test" in out
    rc, out = run(capsys, compat, fake_node, exp, "--strict")
    assert rc == 1


REQUESTS = """\
"Request building":
  - do:
      echo:
        a_list: [x, y]
        flag: true
        ratio: 0.5
        body: { q: "${v}" }
  - match: { method: POST }
  - match: { path: /echo }
  - match: { query: "a_list=x,y&flag=true&ratio=0.5&error_trace=true" }
  - match: { ctype: "application/json; charset=UTF-8" }
---
"Bulk bodies are NDJSON":
  - do:
      bulk:
        index: my-index
        body:
          - '{"index": {"_id": "1"}}'
          - { f: 1 }
  - match: { acknowledged: true }
"""


def test_request_building(tmp_path, capsys, fake_node):
    text = REQUESTS.replace('"${v}"', '"plain"')
    compat = make_compat(tmp_path, {"s/30_req.yml": text})
    rc, out = run(capsys, compat, fake_node, tmp_path / "exp.txt")
    assert "2 passed, 0 failed" in out, out
    bulk = [r for r in FakeNode.log if r["path"] == "/my-index/_bulk"][0]
    assert bulk["method"] == "POST"
    assert bulk["body"] == '{"index":{"_id":"1"}}\n{"f":1}\n'
    assert bulk["ctype"].startswith("application/x-ndjson")
    assert "gzip" not in bulk["headers"].get("Accept-Encoding", "")  # as the Java client


def test_skip_txt_and_broken_yaml(tmp_path, capsys, fake_node):
    compat = make_compat(tmp_path, {"s/10_basic.yml": BASIC, "s/40_bad.yml": "a: [\n"},
                         skip_txt="s/10_basic.yml  # not for trove\n")
    rc, out = run(capsys, compat, fake_node, tmp_path / "exp.txt")
    assert "SKIP s/10_basic.yml :: Index and get  # not for trove" in out
    assert "FAIL s/40_bad.yml :: (file)  # runner: YAML does not parse" in out
    assert rc == 1


def test_filters_select_tests(tmp_path, capsys, fake_node):
    compat = make_compat(tmp_path, {"s/10_basic.yml": BASIC})
    rc, out = run(capsys, compat, fake_node, tmp_path / "exp.txt", "Missing doc")
    assert "1 passed, 0 failed, 0 skipped" in out and rc == 0


def test_missing_compat_dir_is_an_error(tmp_path, capsys):
    assert y.main(["--compat", str(tmp_path / "nope")]) == 2


FAKE_TROVE = r'''#!/usr/bin/python3
# A stand-in for `trove serve --port 0`: logs its URL on stderr like trove,
# answers a few requests, dies on /crash after printing a sanitizer report.
import json, os, signal, sys
signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))
from http.server import BaseHTTPRequestHandler, HTTPServer
assert sys.argv[1:] == ["serve", "--port", "0", "--node-attr", "testattr=test"], sys.argv
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    wbufsize = 1 << 16
    def log_message(self, *a):
        pass
    def any(self):
        n = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(n)
        path = self.path.split("?")[0]
        if path == "/crash":
            print("==1==ERROR: AddressSanitizer: heap-use-after-free on address 0x1", file=sys.stderr)
            sys.stderr.flush()
            os._exit(1)
        body = json.dumps({} if path == "/_all" else {"acknowledged": True}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()
    do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = any
srv = HTTPServer(("127.0.0.1", 0), H)
print("trove: listening on http://127.0.0.1:%d" % srv.server_address[1], file=sys.stderr, flush=True)
srv.serve_forever()
'''

CRASHING = """\
"Before":
  - do:
      warn: {}
  - match: { acknowledged: true }
---
"Crash":
  - do:
      crash: {}
---
"After":
  - do:
      warn: {}
  - match: { acknowledged: true }
"""


def test_server_process_crash_and_sanitizer_report(tmp_path, capsys):
    SPECS["crash"] = {"url": {"paths": [{"path": "/crash", "methods": ["GET"]}]}, "params": {}}
    try:
        compat = make_compat(tmp_path, {"s/50_crash.yml": CRASHING})
    finally:
        del SPECS["crash"]
    fake = tmp_path / "fake-trove"
    fake.write_text(FAKE_TROVE)
    fake.chmod(0o755)
    exp = tmp_path / "exp.txt"
    exp.write_text("s/50_crash.yml :: Crash  # crashes\n")
    rc = y.main(["--compat", str(compat), "--trove", str(fake), "--expected", str(exp)])
    out = capsys.readouterr().out
    assert "PASS s/50_crash.yml :: Before" in out
    assert "FAIL s/50_crash.yml :: Crash  # trove exited with status 1" in out
    assert "PASS s/50_crash.yml :: After" in out  # a fresh server took over
    assert "sanitizer reports" in out and "heap-use-after-free" in out
    assert "on SIGTERM" not in out  # the stand-in exits cleanly, as trove must
    assert rc == 1  # the crash is expected, the sanitizer report is not
