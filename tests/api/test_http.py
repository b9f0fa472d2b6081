"""HTTP/1.1 behaviour of `trove serve`: the transport in front of trove_request.

Run: /usr/bin/python3 -m pytest tests/api (TROVE_BIN selects the binary).
Every socket has a timeout, so no test can hang.
"""
import gzip
import json
import random
import resource
import signal
import socket
import threading
import time
import zlib

import pytest
import requests

TIMEOUT = 10
JSON = {"Content-Type": "application/json"}


class Conn:
    """A raw HTTP/1.1 client connection that reads answers one by one."""

    def __init__(self, server, timeout=TIMEOUT):
        self.sock = socket.create_connection((server.host, server.port), timeout=timeout)
        self.buf = b""

    def send(self, data):
        self.sock.sendall(data)

    def _fill(self):
        chunk = self.sock.recv(65536)
        if not chunk:
            raise EOFError("connection closed")
        self.buf += chunk

    def response(self, head=False):
        """Returns (status, headers with lower-case names, body, status line)."""
        while b"\r\n\r\n" not in self.buf:
            self._fill()
        raw, self.buf = self.buf.split(b"\r\n\r\n", 1)
        lines = raw.decode("latin-1").split("\r\n")
        status = int(lines[0].split(" ")[1])
        headers = {}
        for line in lines[1:]:
            k, v = line.split(":", 1)
            headers[k.strip().lower()] = v.strip()
        n = 0 if head or status == 100 else int(headers.get("content-length", "0"))
        while len(self.buf) < n:
            self._fill()
        body, self.buf = self.buf[:n], self.buf[n:]
        return status, headers, body, lines[0]

    def closed_by_peer(self):
        """True when the server closes the connection (EOF, or a reset)."""
        try:
            while True:
                chunk = self.sock.recv(65536)
                if not chunk:
                    return True
                self.buf += chunk
        except ConnectionResetError:
            return True
        except socket.timeout:
            return False

    def close(self):
        self.sock.close()


def req(method, path, body=b"", headers=None, version="HTTP/1.1"):
    if isinstance(body, (dict, list)):
        body = json.dumps(body).encode()
    h = {"Host": "localhost"}
    if body:
        h["Content-Type"] = "application/json"
        h["Content-Length"] = str(len(body))
    h.update(headers or {})
    head = "%s %s %s\r\n" % (method, path, version) + "".join("%s: %s\r\n" % kv for kv in h.items() if kv[1] is not None)
    return head.encode() + b"\r\n" + body


@pytest.fixture(scope="module")
def idx(server):
    """A fresh index with a text field, named for the module run."""
    name = "http-%d" % random.randrange(1 << 30)
    r = requests.put(server.url + "/" + name, json={"mappings": {"properties": {"t": {"type": "text"}, "n": {"type": "long"}}}},
                     timeout=TIMEOUT)
    assert r.status_code == 200, r.text
    return name


# ---------------------------------------------------------------- basics

def test_root_shape(server):
    r = requests.get(server.url + "/", timeout=TIMEOUT)
    assert r.status_code == 200
    assert r.headers["content-type"] == "application/json; charset=UTF-8"
    assert r.headers["X-OpenSearch-Version"].startswith("OpenSearch/3.")
    body = r.json()
    assert set(body) >= {"name", "cluster_name", "cluster_uuid", "version", "tagline"}
    assert body["version"]["distribution"] == "opensearch"
    assert body["version"]["number"].startswith("3.")


def test_index_doc_search_round_trip(server, idx):
    u = server.url
    r = requests.put(f"{u}/{idx}/_doc/1?refresh=true", json={"t": "hello round trip", "n": 1}, timeout=TIMEOUT)
    assert r.status_code == 201, r.text
    assert r.json()["result"] == "created"
    r = requests.get(f"{u}/{idx}/_doc/1", timeout=TIMEOUT)
    assert r.status_code == 200 and r.json()["_source"] == {"t": "hello round trip", "n": 1}
    r = requests.post(f"{u}/{idx}/_search", json={"query": {"match": {"t": "round"}}}, timeout=TIMEOUT)
    assert r.status_code == 200, r.text
    hits = r.json()["hits"]["hits"]
    assert [h["_id"] for h in hits] == ["1"]


def test_error_from_api_layer_passes_through(server):
    r = requests.get(server.url + "/no-such-index/_doc/1", timeout=TIMEOUT)
    assert r.status_code == 404
    assert r.json()["error"]["type"] == "index_not_found_exception"


def test_405_carries_allow_header(server):
    r = requests.post(server.url + "/", timeout=TIMEOUT)
    assert r.status_code == 405
    assert r.headers["Allow"] == "GET,HEAD"
    assert r.json() == {"error": "Incorrect HTTP method for uri [/] and method [POST], allowed: [GET, HEAD]",
                        "status": 405}


def test_opaque_id_is_echoed(server):
    r = requests.get(server.url + "/", headers={"X-Opaque-Id": "trace-42"}, timeout=TIMEOUT)
    assert r.headers["X-Opaque-Id"] == "trace-42"


# ------------------------------------------------- connection management

def test_keep_alive_serves_many_requests_on_one_connection(server):
    c = Conn(server)
    try:
        for _ in range(5):
            c.send(req("GET", "/"))
            status, headers, body, _ = c.response()
            assert status == 200 and json.loads(body)["tagline"]
            assert "connection" not in headers
    finally:
        c.close()


def test_pipelined_requests_answer_in_order(server, idx):
    c = Conn(server)
    try:
        batch = b""
        for i in range(20):
            batch += req("PUT", f"/{idx}/_doc/p{i}", {"t": "pipelined", "n": i})
        for i in range(20):
            batch += req("GET", f"/{idx}/_doc/p{i}")
        batch += req("HEAD", "/") + req("GET", "/")
        c.send(batch)
        for i in range(20):
            status, _, body, _ = c.response()
            assert status == 201 and json.loads(body)["_id"] == f"p{i}"
        for i in range(20):
            status, _, body, _ = c.response()
            assert status == 200 and json.loads(body)["_source"]["n"] == i
        status, _, body, _ = c.response(head=True)
        assert status == 200 and body == b""
        status, _, body, _ = c.response()
        assert status == 200 and json.loads(body)["version"]
    finally:
        c.close()


def test_connection_close_is_honoured_after_pipelined_answers(server):
    c = Conn(server)
    try:
        c.send(req("GET", "/") + req("GET", "/", headers={"Connection": "close"}) + req("GET", "/"))
        assert c.response()[0] == 200
        status, headers, _, _ = c.response()
        assert status == 200 and headers["connection"] == "close"
        assert c.closed_by_peer()
        assert c.buf == b""  # the third request was not answered
    finally:
        c.close()


def test_http10_closes_unless_keep_alive(server):
    c = Conn(server)
    try:
        c.send(b"GET / HTTP/1.0\r\n\r\n")
        status, _, _, line = c.response()
        assert status == 200 and line.startswith("HTTP/1.0 200")
        assert c.closed_by_peer()
    finally:
        c.close()
    c = Conn(server)
    try:
        c.send(b"GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        status, headers, _, _ = c.response()
        assert status == 200 and headers["connection"] == "keep-alive"
        c.send(b"GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        assert c.response()[0] == 200
    finally:
        c.close()


# ------------------------------------------------------------------ bodies

def test_chunked_request_body(server, idx):
    c = Conn(server)
    try:
        doc = json.dumps({"t": "chunked body", "n": 7}).encode()
        parts = [doc[:5], doc[5:11], doc[11:]]
        body = b"".join(b"%x;ext=1\r\n%s\r\n" % (len(p), p) for p in parts) + b"0\r\nX-Trailer: y\r\n\r\n"
        c.send(b"PUT /%s/_doc/chunked HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
               b"Transfer-Encoding: chunked\r\n\r\n" % idx.encode())
        # the body in small pieces, as a streaming client sends it
        for i in range(0, len(body), 7):
            c.send(body[i:i + 7])
            time.sleep(0.002)
        status, _, rbody, _ = c.response()
        assert status == 201, rbody
    finally:
        c.close()
    r = requests.get(f"{server.url}/{idx}/_doc/chunked", timeout=TIMEOUT)
    assert r.json()["_source"] == {"t": "chunked body", "n": 7}


def test_chunked_body_from_requests_generator(server, idx):
    def gen():
        yield b'{"t": "gener'
        yield b'ated", "n": 8}'
    r = requests.put(f"{server.url}/{idx}/_doc/gen", data=gen(), headers=JSON, timeout=TIMEOUT)
    assert r.status_code == 201, r.text
    assert requests.get(f"{server.url}/{idx}/_doc/gen", timeout=TIMEOUT).json()["_source"]["n"] == 8


def test_expect_100_continue(server, idx):
    c = Conn(server)
    try:
        body = json.dumps({"t": "continued", "n": 9}).encode()
        c.send(b"PUT /%s/_doc/cont HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
               b"Content-Length: %d\r\nExpect: 100-continue\r\n\r\n" % (idx.encode(), len(body)))
        status, _, _, line = c.response()
        assert status == 100 and line == "HTTP/1.1 100 Continue"
        c.send(body)
        status, _, rbody, _ = c.response()
        assert status == 201, rbody
    finally:
        c.close()


def test_expect_100_continue_too_large_is_refused_before_the_body(server):
    c = Conn(server)
    try:
        c.send(b"PUT /x/_doc/1 HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
               b"Content-Length: 104857601\r\nExpect: 100-continue\r\n\r\n")
        status, headers, body, _ = c.response()
        assert status == 413 and body == b"" and headers["content-length"] == "0"
        assert c.closed_by_peer()
    finally:
        c.close()


def test_unsupported_expectation_is_417(server):
    c = Conn(server)
    try:
        c.send(b"PUT /x/_doc/1 HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nExpect: something\r\n\r\n{}")
        assert c.response()[0] == 417
    finally:
        c.close()


def test_content_length_over_100mb_is_413(server):
    c = Conn(server)
    try:
        c.send(b"POST /_bulk HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-ndjson\r\n"
               b"Content-Length: 104857601\r\n\r\n" + b"x" * 65536)
        status, headers, body, _ = c.response()
        assert status == 413 and body == b""
        assert headers["connection"] == "close"
        assert c.closed_by_peer()
    finally:
        c.close()


def test_gzip_request_body(server, idx):
    body = gzip.compress(json.dumps({"t": "compressed body", "n": 10}).encode())
    r = requests.put(f"{server.url}/{idx}/_doc/gz", data=body,
                     headers={"Content-Type": "application/json", "Content-Encoding": "gzip"}, timeout=TIMEOUT)
    assert r.status_code == 201, r.text
    body = zlib.compress(json.dumps({"t": "deflated body", "n": 11}).encode())
    r = requests.put(f"{server.url}/{idx}/_doc/df", data=body,
                     headers={"Content-Type": "application/json", "Content-Encoding": "deflate"}, timeout=TIMEOUT)
    assert r.status_code == 201, r.text
    assert requests.get(f"{server.url}/{idx}/_doc/gz", timeout=TIMEOUT).json()["_source"]["n"] == 10
    assert requests.get(f"{server.url}/{idx}/_doc/df", timeout=TIMEOUT).json()["_source"]["n"] == 11


def test_corrupt_gzip_body_is_400(server, idx):
    c = Conn(server)
    try:
        c.send(req("PUT", f"/{idx}/_doc/bad", b"\x1f\x8b\x08\x00garbage", headers={"Content-Encoding": "gzip"}))
        status, _, body, _ = c.response()
        assert status == 400 and json.loads(body)["status"] == 400
    finally:
        c.close()


def test_gzip_body_inflating_past_100mb_is_413(server):
    c = zlib.compressobj(1, zlib.DEFLATED, 31)
    bomb = c.compress(b"\0" * (101 << 20)) + c.flush()
    conn = Conn(server, timeout=30)
    try:
        conn.send(req("POST", "/_bulk", bomb, headers={"Content-Encoding": "gzip",
                                                       "Content-Type": "application/x-ndjson"}))
        assert conn.response()[0] == 413
    finally:
        conn.close()


def test_gzip_and_deflate_responses(server):
    r = requests.get(server.url + "/", headers={"Accept-Encoding": "gzip"}, timeout=TIMEOUT)
    assert r.headers["content-encoding"] == "gzip" and r.json()["tagline"]
    r = requests.get(server.url + "/", headers={"Accept-Encoding": "deflate"}, timeout=TIMEOUT)
    assert r.headers["content-encoding"] == "deflate" and r.json()["tagline"]
    c = Conn(server)
    try:
        c.send(req("GET", "/", headers={"Accept-Encoding": "identity"}))
        status, headers, plain, _ = c.response()
        assert "content-encoding" not in headers
        c.send(req("GET", "/", headers={"Accept-Encoding": "gzip;q=1.0, deflate;q=0.5"}))
        status, headers, packed, _ = c.response()
        assert headers["content-encoding"] == "gzip"
        assert int(headers["content-length"]) == len(packed)
        assert gzip.decompress(packed) == plain
    finally:
        c.close()


def test_head_has_headers_and_no_body(server, idx):
    c = Conn(server)
    try:
        c.send(req("HEAD", "/") + req("HEAD", f"/{idx}") + req("HEAD", "/missing-index") + req("GET", "/"))
        assert c.response(head=True)[0] == 200
        assert c.response(head=True)[0] == 200
        status, headers, _, _ = c.response(head=True)
        assert status == 404 and "content-length" in headers
        status, _, body, _ = c.response()  # the stream is still in step
        assert status == 200 and json.loads(body)["tagline"]
    finally:
        c.close()


# ------------------------------------------------------------ content type

def test_unsupported_content_type_is_406(server, idx):
    r = requests.post(f"{server.url}/{idx}/_doc", data=b'{"t":"x"}', headers={"Content-Type": "text/plain"},
                      timeout=TIMEOUT)
    assert r.status_code == 406
    assert r.json() == {"error": "Content-Type header [text/plain] is not supported", "status": 406}


def test_missing_content_type_with_body_is_406(server, idx):
    c = Conn(server)
    try:
        c.send(req("POST", f"/{idx}/_doc", b'{"t":"x"}', headers={"Content-Type": None}))
        status, _, body, _ = c.response()
        assert status == 406
        assert json.loads(body) == {"error": "Content-Type header is missing", "status": 406}
    finally:
        c.close()


def test_json_variants_are_accepted(server, idx):
    for ct in ("application/json", "application/json; charset=UTF-8", "APPLICATION/JSON"):
        r = requests.post(f"{server.url}/{idx}/_doc", data=b'{"t":"ct"}', headers={"Content-Type": ct},
                          timeout=TIMEOUT)
        assert r.status_code == 201, (ct, r.text)
    bulk = b'{"index":{"_index":"%s","_id":"nd"}}\n{"t":"ndjson"}\n' % idx.encode()
    r = requests.post(f"{server.url}/_bulk", data=bulk, headers={"Content-Type": "application/x-ndjson"},
                      timeout=TIMEOUT)
    assert r.status_code == 200 and r.json()["errors"] is False


def test_invalid_content_type_header_is_400(server):
    r = requests.get(server.url + "/", headers={"Content-Type": "nonsense"}, timeout=TIMEOUT)
    assert r.status_code == 400
    err = r.json()["error"]
    assert err["type"] == "content_type_header_exception"
    assert err["caused_by"] == {"type": "illegal_argument_exception", "reason": "invalid Content-Type header [nonsense]"}


def test_bad_content_type_on_unknown_route_is_routing_error(server):
    r = requests.post(server.url + "/nope/_nothing", data=b"x", headers={"Content-Type": "text/plain"},
                      timeout=TIMEOUT)
    assert r.status_code == 400
    assert r.json()["error"] == "no handler found for uri [/nope/_nothing] and method [POST]"


# -------------------------------------------------------------- malformed

MALFORMED = [
    b"GARBAGE\r\n\r\n",
    b"GET /\r\n\r\n",
    b"GET / HTTP/9.9\r\n\r\n",
    b"GET / FOO\r\n\r\n",
    b"G(T / HTTP/1.1\r\n\r\n",
    b"GET / HTTP/1.1\r\nBad Header\r\n\r\n",
    b"GET / HTTP/1.1\r\n folded: header\r\n\r\n",
    b"GET / HTTP/1.1\r\nContent-Length: abc\r\n\r\n",
    b"GET / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
    b"GET / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n",
    b"\x00\x01\x02 \x03 \x04\r\n\r\n",
    b"POST /x/_doc HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nzz\r\n",
]


@pytest.mark.parametrize("raw", MALFORMED, ids=range(len(MALFORMED)))
def test_malformed_request_gets_400_and_close(server, raw):
    c = Conn(server)
    try:
        c.send(raw)
        status, headers, body, _ = c.response()
        assert status == 400
        assert json.loads(body)["status"] == 400
        assert headers["connection"] == "close"
        assert c.closed_by_peer()
    finally:
        c.close()
    assert requests.get(server.url + "/", timeout=TIMEOUT).status_code == 200


def test_header_limits(server):
    c = Conn(server)
    try:
        c.send(b"GET /" + b"a" * 5000 + b" HTTP/1.1\r\n\r\n")
        status, _, body, _ = c.response()
        assert status == 400
        assert json.loads(body)["error"]["type"] == "too_long_http_line_exception"
        assert c.closed_by_peer()
    finally:
        c.close()
    c = Conn(server)
    try:
        c.send(b"GET / HTTP/1.1\r\nX-Big: " + b"b" * 9000 + b"\r\n\r\n")
        status, _, body, _ = c.response()
        assert status == 400
        err = json.loads(body)["error"]
        assert err["type"] == "too_long_http_header_exception"
        assert err["reason"] == "HTTP header is larger than 8192 bytes."
    finally:
        c.close()
    c = Conn(server)
    try:  # just under both limits is fine
        c.send(b"GET /?" + b"p" * 3000 + b" HTTP/1.1\r\nX-Big: " + b"b" * 8000 + b"\r\n\r\n")
        assert c.response()[0] in (200, 400)  # the api layer judges the parameter, not the transport
        c.send(req("GET", "/"))
        assert c.response()[0] == 200
    finally:
        c.close()


# ------------------------------------------------------------ concurrency

def test_concurrent_writers_and_readers(server):
    name = "conc-%d" % random.randrange(1 << 30)
    assert requests.put(f"{server.url}/{name}", timeout=TIMEOUT).status_code == 200
    writers, per_writer = 4, 40
    errors = []

    def doc(w, i):
        return {"w": w, "i": i, "pad": "x" * (i * 7 % 300), "t": "writer %d doc %d" % (w, i)}

    def writer(w):
        s = requests.Session()
        for i in range(per_writer):
            r = s.put(f"{server.url}/{name}/_doc/{w}-{i}", json=doc(w, i), timeout=TIMEOUT)
            if r.status_code != 201:
                errors.append(("write", r.status_code, r.text))

    stop = threading.Event()

    def reader():
        s = requests.Session()
        while not stop.is_set():
            w, i = random.randrange(writers), random.randrange(per_writer)
            r = s.get(f"{server.url}/{name}/_doc/{w}-{i}", timeout=TIMEOUT)
            if r.status_code == 200:
                if r.json()["_source"] != doc(w, i):
                    errors.append(("torn", w, i, r.text))
            elif r.status_code != 404:
                errors.append(("read", r.status_code, r.text))

    ts = [threading.Thread(target=writer, args=(w,)) for w in range(writers)]
    rs = [threading.Thread(target=reader) for _ in range(3)]
    for t in ts + rs:
        t.start()
    for t in ts:
        t.join(60)
    stop.set()
    for t in rs:
        t.join(60)
    assert not errors, errors[:3]
    assert requests.post(f"{server.url}/{name}/_refresh", timeout=TIMEOUT).status_code == 200
    r = requests.get(f"{server.url}/{name}/_count", timeout=TIMEOUT)
    assert r.json()["count"] == writers * per_writer


def test_slow_client_does_not_block_others(server):
    slow = [Conn(server) for _ in range(4)]
    try:
        slow[0].send(b"GET / HTTP/1.1\r\nHo")
        slow[1].send(b"PUT /slow/_doc/1 HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"a")
        slow[2].send(b"PUT /slow/_doc/2 HTTP/1.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n{\"a")
        # slow[3] sends nothing (a half-open client)
        start = time.monotonic()
        s = requests.Session()
        for _ in range(50):
            assert s.get(server.url + "/", timeout=TIMEOUT).status_code == 200
        assert time.monotonic() - start < 5
        slow[0].send(b"st: x\r\n\r\n")
        assert slow[0].response()[0] == 200
    finally:
        for c in slow:
            c.close()


def test_ten_thousand_idle_connections(server):
    want = 10000
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < want + 200:
        pytest.skip(f"process fd hard limit {hard} is below {want + 200}")
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    socks = []
    try:
        for _ in range(want):
            s = socket.socket()
            s.settimeout(TIMEOUT)
            s.connect((server.host, server.port))
            socks.append(s)
        r = requests.get(server.url + "/", timeout=TIMEOUT)
        assert r.status_code == 200
        for s in (socks[0], socks[want // 2], socks[-1]):
            s.sendall(req("GET", "/"))
            data = s.recv(65536)
            assert data.startswith(b"HTTP/1.1 200 OK")
    finally:
        for s in socks:
            s.close()
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    assert requests.get(server.url + "/", timeout=TIMEOUT).status_code == 200


# ------------------------------------------------------------ lifecycle

def test_idle_connections_are_closed_after_the_timeout(make_server):
    srv = make_server("--idle-timeout", "1", "--threads", "1")
    idle, partial = Conn(srv, timeout=6), Conn(srv, timeout=6)
    try:
        partial.send(b"GET / HTTP/1.1\r\n")
        start = time.monotonic()
        assert idle.closed_by_peer() and partial.closed_by_peer()
        assert time.monotonic() - start < 5
    finally:
        idle.close()
        partial.close()
    rc, log = srv.stop()
    assert rc == 0, log


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_signal_stops_cleanly_with_open_connections(make_server, sig):
    srv = make_server("--threads", "2")
    conns = [Conn(srv) for _ in range(5)]
    try:
        conns[0].send(req("GET", "/"))
        assert conns[0].response()[0] == 200
        conns[1].send(b"PUT /x/_doc/1 HTTP/1.1\r\nContent-Length: 10\r\n\r\n{")
        rc, log = srv.stop(sig)
        assert rc == 0, log
        assert "trove: stopped" in log
        assert "ERROR" not in log and "LeakSanitizer" not in log, log
    finally:
        for c in conns:
            c.close()
