"""HTTPS and HTTP Basic authentication of `trove serve` (--tls-cert/--tls-key,
--users, and the users file `trove passwd` writes).

A self-signed certificate for 127.0.0.1 is made with the openssl command in
a temporary directory, and the users file with `trove passwd` (so the
command's output is what the server reads). Clients: python3-requests
(verify= the certificate), Python's ssl module for raw pipelined bytes, and
Debian's `openssl s_client` for protocol versions. Every server listens on
127.0.0.1 with --port 0; every socket has a timeout.

What is checked: TLS 1.2 and 1.3 connect and TLS 1.1 is refused; plain
HTTP on the TLS port is dropped without harming the server; pipelining,
keep-alive, chunked bodies, large bodies both ways, Connection: close and
the idle timeout over TLS; 401 without or with wrong credentials (header
and body exact); for each role a request it may make and one it may not,
with the security plugin's 403 body exact; pattern-limited roles including
_bulk bodies that name other indices; clone listeners of a TLS server speak
TLS and report https URLs; the ready line says https; bad certificate, key
and users files stop the server with a message; a public address without
--users warns; and no password ever reaches the server's stderr.
"""
import base64
import json
import os
import select
import shutil
import socket
import ssl
import subprocess
import threading
import time

import pytest
import requests

from conftest import Server, trove_bin

PASSWORDS = {
    "root": "Adm1n-pw-7f3c1e-TROVE",
    "writer": "Wr1te-pw-88a0d2-TROVE",
    "reader": "Re4d-pw-41bb9c-TROVE",
    "logs": "L0gs-pw-c05e77-TROVE",
    "logw": "L0gw-pw-2d9e13-TROVE",
}
ROLES = {
    "root": ["admin"],
    "writer": ["write"],
    "reader": ["read"],
    "logs": ["read:logs-*", "read:metrics-2024"],
    "logw": ["write:logs-*"],
}


def forbidden(action, user):
    reason = ("no permissions for [%s] and User [name=%s, backend_roles=[], requestedTenant=null]"
              % (action, user))
    return json.dumps({"error": {"root_cause": [{"type": "security_exception", "reason": reason}],
                                 "type": "security_exception", "reason": reason}, "status": 403},
                      separators=(",", ":"))


def passwd(name, roles, users=None, password=None):
    args = [trove_bin(), "passwd", name]
    for r in roles:
        args += ["--role", r]
    if users:
        args += ["--users", str(users)]
    return subprocess.run(args, input=(password or PASSWORDS[name]) + "\n", capture_output=True, text=True,
                          timeout=60)


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    if not shutil.which("openssl"):
        pytest.skip("no openssl command (apt-get install openssl)")
    if not os.path.exists(trove_bin()):
        pytest.skip("no trove binary")
    d = tmp_path_factory.mktemp("pki")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-keyout", str(d / "key.pem"), "-out", str(d / "cert.pem"), "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"],
                   check=True, capture_output=True, timeout=60)
    users = d / "users"
    users.write_text("# trove users, written by trove passwd\n\n")
    for name, roles in ROLES.items():
        p = passwd(name, roles, users)
        assert p.returncode == 0, p.stderr
    return d


def tls_args(pki):
    return ["--tls-cert", str(pki / "cert.pem"), "--tls-key", str(pki / "key.pem")]


@pytest.fixture(scope="module")
def tls_server(pki):
    s = Server(*tls_args(pki), "--idle-timeout", "2")
    yield s
    rc, log = s.stop()
    assert rc == 0, log


@pytest.fixture(scope="module")
def auth_server(pki):
    s = Server(*tls_args(pki), "--users", str(pki / "users"))
    yield s
    rc, log = s.stop()
    assert rc == 0, log
    for pw in PASSWORDS.values():
        assert pw not in log, "a password reached the server's log"
        assert base64.b64encode(pw.encode()).decode()[:12] not in log


def call(server, pki, method, path, user=None, body=None, password=None, **kw):
    auth = None
    if user:
        auth = (user, password if password is not None else PASSWORDS[user])
    headers = {}
    data = None
    if body is not None:
        data = body if isinstance(body, (bytes, str)) else json.dumps(body)
        headers["Content-Type"] = "application/x-ndjson" if isinstance(body, str) else "application/json"
    return requests.request(method, server.url + path, auth=auth, data=data, headers=headers,
                            verify=str(pki / "cert.pem"), timeout=30, **kw)


def tls_socket(server, pki):
    ctx = ssl.create_default_context(cafile=str(pki / "cert.pem"))
    raw = socket.create_connection((server.host, server.port), timeout=10)
    return ctx.wrap_socket(raw, server_hostname="127.0.0.1")


def read_responses(sock, count, deadline=10):
    """Reads count HTTP/1.1 responses (content-length framed): [(status, headers, body)]."""
    buf = b""
    out = []
    end = time.monotonic() + deadline
    while len(out) < count:
        while b"\r\n\r\n" not in buf:
            assert time.monotonic() < end, "timed out reading responses: %r" % buf[:200]
            chunk = sock.recv(65536)
            assert chunk, "connection closed after %d responses" % len(out)
            buf += chunk
        head, buf = buf.split(b"\r\n\r\n", 1)
        lines = head.decode().split("\r\n")
        status = int(lines[0].split()[1])
        headers = {k.lower(): v for k, v in (l.split(": ", 1) for l in lines[1:])}
        n = int(headers.get("content-length", "0"))
        while len(buf) < n:
            assert time.monotonic() < end, "timed out reading a body"
            chunk = sock.recv(max(65536, n - len(buf)))
            assert chunk, "connection closed inside a body"
            buf += chunk
        out.append((status, headers, buf[:n]))
        buf = buf[n:]
    return out


def s_client(server, pki, *args):
    return subprocess.run(["openssl", "s_client", "-connect", "%s:%d" % (server.host, server.port), "-brief",
                           "-CAfile", str(pki / "cert.pem"), *args],
                          input=b"", capture_output=True, timeout=30)


# ------------------------------------------------------------------ TLS


def test_https_with_requests(tls_server, pki):
    assert tls_server.url.startswith("https://127.0.0.1:")
    r = call(tls_server, pki, "GET", "/")
    assert r.status_code == 200 and r.json()["version"]["distribution"] == "opensearch"
    r = call(tls_server, pki, "PUT", "/tls-a", body={"mappings": {"properties": {"t": {"type": "text"}}}})
    assert r.status_code == 200, r.text
    r = call(tls_server, pki, "PUT", "/tls-a/_doc/1?refresh=true", body={"t": "over tls"})
    assert r.status_code == 201, r.text
    r = call(tls_server, pki, "POST", "/tls-a/_search", body={"query": {"match": {"t": "tls"}}})
    assert r.json()["hits"]["total"]["value"] == 1


@pytest.mark.parametrize("version,name", [("-tls1_2", "TLSv1.2"), ("-tls1_3", "TLSv1.3")])
def test_s_client_versions(tls_server, pki, version, name):
    p = s_client(tls_server, pki, version)
    out = (p.stdout + p.stderr).decode(errors="replace")
    assert "Protocol version: " + name in out, out
    assert "Verification: OK" in out, out


def test_tls11_refused(tls_server, pki):
    # SECLEVEL=0 lets the client offer TLS 1.1 at all; the server must refuse it
    p = s_client(tls_server, pki, "-tls1_1", "-cipher", "DEFAULT@SECLEVEL=0")
    out = (p.stdout + p.stderr).decode(errors="replace")
    assert p.returncode != 0, out
    assert "Protocol version: TLSv1.1" not in out
    assert "alert protocol version" in out or "no protocols available" in out, out
    assert call(tls_server, pki, "GET", "/").status_code == 200


def test_plain_http_on_tls_port(tls_server, pki):
    s = socket.create_connection((tls_server.host, tls_server.port), timeout=10)
    s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
    try:
        got = s.recv(4096)
    except ConnectionResetError:
        got = b""
    s.close()
    assert not got.startswith(b"HTTP/1.1 200"), got
    assert tls_server.proc.poll() is None
    assert call(tls_server, pki, "GET", "/").status_code == 200


def test_pipelined_over_tls(tls_server, pki):
    s = tls_socket(tls_server, pki)
    reqs = b"".join([
        b"GET /_cluster/health HTTP/1.1\r\nHost: x\r\n\r\n",
        b"PUT /tls-pipe/_doc/1?refresh=true HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Content-Length: 9\r\n\r\n{\"n\": 1}\n",
        b"GET /tls-pipe/_doc/1 HTTP/1.1\r\nHost: x\r\n\r\n",
        b"POST /tls-pipe/_count HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
        b"Content-Type: application/json\r\n\r\n5\r\n{\"que\r\n15\r\nry\":{\"match_all\":{}}}\r\n0\r\n\r\n",
        b"GET /nope/_count HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    ])
    s.sendall(reqs)
    out = read_responses(s, 5)
    assert [st for st, _, _ in out] == [200, 201, 200, 200, 404]
    assert json.loads(out[2][2])["_source"] == {"n": 1}
    assert json.loads(out[3][2])["count"] == 1
    assert out[4][1].get("connection") == "close"
    # lingering close: the server ends the session after the answer
    s.settimeout(5)
    try:
        rest = s.recv(100)
    except (ssl.SSLError, ConnectionResetError):
        rest = b""
    assert rest == b""
    s.close()


def test_keep_alive_and_large_bodies_over_tls(tls_server, pki):
    with requests.Session() as sess:
        v = str(pki / "cert.pem")  # per call: an environment CA bundle would override Session.verify
        lines = []
        for i in range(4000):
            lines.append(json.dumps({"index": {"_index": "tls-big", "_id": str(i)}}))
            lines.append(json.dumps({"n": i, "pad": "x" * 500}))
        body = "\n".join(lines) + "\n"  # about 2.2 MB: many TLS records in, several reads per request
        r = sess.post(tls_server.url + "/_bulk?refresh=true", data=body,
                      headers={"Content-Type": "application/x-ndjson"}, timeout=60, verify=v)
        assert r.status_code == 200 and r.json()["errors"] is False
        for _ in range(20):
            r = sess.get(tls_server.url + "/tls-big/_count", timeout=10, verify=v)
            assert r.json()["count"] == 4000
        # a large answer: written in many records, partial writes included
        r = sess.post(tls_server.url + "/tls-big/_search", json={"size": 4000, "sort": ["n"]}, timeout=60, verify=v)
        hits = r.json()["hits"]["hits"]
        assert len(hits) == 4000 and hits[-1]["_source"]["n"] == 3999


def test_idle_timeout_over_tls(tls_server, pki):
    s = tls_socket(tls_server, pki)  # handshake done, then silence
    s.settimeout(8)
    t0 = time.monotonic()
    try:
        got = s.recv(100)
    except (ssl.SSLError, ConnectionResetError):
        got = b""
    assert got == b"" and time.monotonic() - t0 < 7
    s.close()


def test_ready_line_says_https(pki):
    p = subprocess.Popen([trove_bin(), "serve", "--port", "0", "--ready-json", *tls_args(pki)],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        r, _, _ = select.select([p.stdout], [], [], 15)
        assert r, "no ready line"
        ready = json.loads(p.stdout.readline())
        assert ready["url"].startswith("https://127.0.0.1:")
        assert requests.get(ready["url"], verify=str(pki / "cert.pem"), timeout=10).status_code == 200
    finally:
        p.stdin.close()  # stdin EOF stops a --ready-json server
        assert p.wait(timeout=20) == 0
        p.stdout.close()
        p.stderr.close()


@pytest.mark.parametrize("which", ["missing", "garbage", "mismatch"])
def test_bad_certificate_or_key_fails_at_start(pki, tmp_path, which):
    cert, key = pki / "cert.pem", pki / "key.pem"
    if which == "missing":
        cert = tmp_path / "none.pem"
    elif which == "garbage":
        cert = tmp_path / "junk.pem"
        cert.write_text("not a certificate\n")
    else:
        subprocess.run(["openssl", "genrsa", "-out", str(tmp_path / "other.pem"), "2048"], check=True,
                       capture_output=True, timeout=60)
        key = tmp_path / "other.pem"
    p = subprocess.run([trove_bin(), "serve", "--port", "0", "--tls-cert", str(cert), "--tls-key", str(key)],
                       stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=30)
    assert p.returncode != 0
    named = key if which == "mismatch" else cert
    assert str(named) in p.stderr and "listening" not in p.stderr, p.stderr


# --------------------------------------------------------------- auth


def test_401_without_or_with_bad_credentials(auth_server, pki):
    for user, pw in [(None, None), ("root", "wrong"), ("nobody", "x"), ("root", "")]:
        r = call(auth_server, pki, "GET", "/", user=user, password=pw)
        assert r.status_code == 401
        assert r.headers["WWW-Authenticate"] == 'Basic realm="OpenSearch Security"'
        assert r.text == "Unauthorized"
        assert r.headers["Content-Type"].startswith("text/plain")
    r = requests.get(auth_server.url + "/", headers={"Authorization": "Bearer abc"},
                     verify=str(pki / "cert.pem"), timeout=10)
    assert r.status_code == 401
    r = requests.head(auth_server.url + "/", verify=str(pki / "cert.pem"), timeout=10)
    assert r.status_code == 401 and r.text == ""


def test_401_keeps_a_whole_request_connection_and_closes_otherwise(auth_server, pki):
    s = tls_socket(auth_server, pki)
    good = base64.b64encode(("reader:" + PASSWORDS["reader"]).encode())
    s.sendall(b"POST /_search HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"
              b"GET / HTTP/1.1\r\nHost: x\r\nAuthorization: Basic " + good + b"\r\n\r\n")
    out = read_responses(s, 2)
    assert [st for st, _, _ in out] == [401, 200]
    # a body that is not all there yet: 401, then the connection closes
    s.sendall(b"PUT /x/_doc/1 HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
    out = read_responses(s, 1)
    assert out[0][0] == 401 and out[0][1].get("connection") == "close"
    s.close()


def test_password_checks_do_not_stall_the_loop(pki):
    """A password hash (about 0.4 s) runs off the event loop: on a one-loop
    server, a client with cached credentials is answered while another's
    new credentials are still being verified."""
    s = Server(*tls_args(pki), "--users", str(pki / "users"), "--threads", "1")
    try:
        assert call(s, pki, "GET", "/", user="reader").status_code == 200  # cached from now on
        done = {}

        def slow():
            r = call(s, pki, "GET", "/", user="writer", password="a wrong one")
            done["slow"] = (time.monotonic(), r.status_code)

        t = threading.Thread(target=slow)
        t.start()
        time.sleep(0.05)
        for _ in range(3):
            assert call(s, pki, "GET", "/_cluster/health", user="reader").status_code == 200
        fast_end = time.monotonic()
        t.join(30)
        assert done["slow"][1] == 401
        assert fast_end < done["slow"][0], "cached requests waited for another client's password check"
    finally:
        rc, log = s.stop()
    assert rc == 0, log


def test_roles(auth_server, pki):
    A = lambda *a, **k: call(auth_server, pki, *a, **k)  # noqa: E731
    # admin: everything
    for idx in ["logs-1", "metrics-2024", "secret"]:
        r = A("PUT", "/" + idx, user="root")
        assert r.status_code == 200, r.text
    r = A("PUT", "/secret/_doc/1?refresh=true", user="root", body={"s": 1})
    assert r.status_code == 201
    r = A("POST", "/_trove/clones", user="writer")
    assert r.status_code == 403 and r.text == forbidden("cluster:admin/trove/clones/create", "writer")

    # write: documents and bulk, not index creation
    r = A("PUT", "/logs-1/_doc/1?refresh=true", user="writer", body={"m": "hello"})
    assert r.status_code == 201, r.text
    r = A("POST", "/_bulk?refresh=true", user="writer",
          body='{"index":{"_index":"metrics-2024","_id":"1"}}\n{"v":1}\n')
    assert r.status_code == 200 and r.json()["errors"] is False
    r = A("PUT", "/new-index", user="writer")
    assert r.status_code == 403 and r.text == forbidden("indices:admin/create", "writer")
    r = A("DELETE", "/logs-1", user="writer")
    assert r.status_code == 403 and r.text == forbidden("indices:admin/delete", "writer")

    # read: searches, gets, monitoring; no writes
    r = A("POST", "/_search", user="reader", body={"query": {"match_all": {}}})
    assert r.status_code == 200 and r.json()["hits"]["total"]["value"] == 3
    assert A("GET", "/_cluster/health", user="reader").status_code == 200
    assert A("GET", "/_cat/indices", user="reader").status_code == 200
    assert A("GET", "/logs-1/_doc/1", user="reader").status_code == 200
    r = A("PUT", "/logs-1/_doc/2", user="reader", body={"m": "no"})
    assert r.status_code == 403 and r.text == forbidden("indices:data/write/index", "reader")
    r = A("POST", "/_bulk", user="reader", body='{"delete":{"_index":"logs-1","_id":"1"}}\n')
    assert r.status_code == 403 and r.text == forbidden("indices:data/write/bulk", "reader")

    # read:logs-*,read:metrics-2024: only those indices, named
    r = A("GET", "/logs-1/_search", user="logs")
    assert r.status_code == 200 and r.json()["hits"]["total"]["value"] == 1
    assert A("GET", "/logs-*,metrics-2024/_count", user="logs").json()["count"] == 2
    assert A("GET", "/", user="logs").status_code == 200
    r = A("GET", "/secret/_search", user="logs")
    assert r.status_code == 403 and r.text == forbidden("indices:data/read/search", "logs")
    r = A("GET", "/logs-1,secret/_search", user="logs")
    assert r.status_code == 403
    for path in ["/_search", "/_all/_search", "/*/_search", "/l*/_search"]:
        r = A("GET", path, user="logs")
        assert r.status_code == 403, path
    r = A("GET", "/_cluster/health", user="logs")
    assert r.status_code == 403 and r.text == forbidden("cluster:monitor/health", "logs")
    r = A("POST", "/_msearch", user="logs", body='{"index":"logs-1"}\n{}\n{"index":"metrics-2024"}\n{}\n')
    assert r.status_code == 200 and [x["status"] for x in r.json()["responses"]] == [200, 200]
    r = A("POST", "/_msearch", user="logs", body='{"index":"logs-1"}\n{}\n{}\n{}\n')
    assert r.status_code == 403 and r.text == forbidden("indices:data/read/msearch", "logs")
    r = A("POST", "/logs-1/_mget", user="logs", body={"docs": [{"_id": "1"}, {"_index": "secret", "_id": "1"}]})
    assert r.status_code == 403 and r.text == forbidden("indices:data/read/mget", "logs")
    r = A("PUT", "/logs-1/_doc/3", user="logs", body={"m": 3})
    assert r.status_code == 403 and r.text == forbidden("indices:data/write/index", "logs")

    # write:logs-*: writes there, and _bulk bodies may not reach elsewhere
    r = A("POST", "/logs-1/_bulk?refresh=true", user="logw", body='{"index":{"_id":"9"}}\n{"m":9}\n')
    assert r.status_code == 200 and r.json()["errors"] is False
    r = A("POST", "/logs-1/_bulk", user="logw", body='{"index":{"_index":"secret","_id":"9"}}\n{"m":9}\n')
    assert r.status_code == 403 and r.text == forbidden("indices:data/write/bulk", "logw")
    r = A("POST", "/_bulk", user="logw", body='{"index":{"_index":"logs-2","_id":"1"}}\n{"m":1}\n')
    assert r.status_code == 200 and r.json()["errors"] is False
    assert A("GET", "/secret/_count", user="root").json()["count"] == 1  # untouched
    r = A("PUT", "/logs-3", user="logw")
    assert r.status_code == 403 and r.text == forbidden("indices:admin/create", "logw")

    # an unknown route answers as OpenSearch would, for any authenticated user
    assert A("GET", "/_no_such_api/x/y/z", user="logs").status_code == 400


def test_clone_listener_of_a_tls_server_speaks_tls(auth_server, pki):
    r = call(auth_server, pki, "POST", "/_trove/clones", user="root")
    assert r.status_code == 201, r.text
    url = r.json()["url"]
    assert url.startswith("https://127.0.0.1:")
    r2 = requests.get(url + "/", auth=("reader", PASSWORDS["reader"]), verify=str(pki / "cert.pem"), timeout=10)
    assert r2.status_code == 200
    assert requests.get(url + "/", verify=str(pki / "cert.pem"), timeout=10).status_code == 401
    listed = call(auth_server, pki, "GET", "/_trove/clones", user="root").json()["clones"]
    assert all(c["url"].startswith("https://") for c in listed)
    assert call(auth_server, pki, "DELETE", "/_trove/clones/" + r.json()["id"], user="root").status_code == 200


def test_passwd_replaces_and_protects(tmp_path):
    if not os.path.exists(trove_bin()):
        pytest.skip("no trove binary")
    users = tmp_path / "u"
    assert passwd("root", ["admin"], users).returncode == 0
    assert oct(users.stat().st_mode & 0o777) == "0o600"
    assert passwd("reader", ["read"], users).returncode == 0
    before = users.read_text().splitlines()
    p = passwd("root", ["read:logs-*", "write:logs-1"], users, password="another one")
    assert p.returncode == 0, p.stderr
    after = users.read_text().splitlines()
    assert len(after) == 2 and after[1] == before[1] and after[0] != before[0]
    assert after[0].startswith("root:$argon2id$v=19$m=65536,t=3,p=1$")
    assert after[0].endswith(":read:logs-*,write:logs-1")
    # without --users: the line on stdout
    p = passwd("solo", ["write"], password="pw")
    assert p.returncode == 0 and p.stdout.startswith("solo:$argon2id$") and p.stdout.endswith(":write\n")
    for bad in [["boss"], ["read:"], ["read,"]]:
        assert passwd("x", bad, password="pw").returncode == 2
    p = subprocess.run([trove_bin(), "passwd", "x", "--role", "read"], input="", capture_output=True,
                       text=True, timeout=30)
    assert p.returncode != 0 and "password" in p.stderr
    p = subprocess.run([trove_bin(), "passwd", "--help"], capture_output=True, text=True, timeout=30)
    assert p.returncode == 0 and "--role" in p.stdout and "--users" in p.stdout


@pytest.mark.parametrize("content,line,what", [
    ("root:nothash:admin\n", 1, "argon2id"),
    ("# ok\n\nroot:$argon2id$v=19$m=65536,t=3,p=1$c2FsdHNhbHQ$aGFzaGhhc2g:boss\n", 3, "unknown role"),
    ("just-a-name\n", 1, "name:hash:roles"),
])
def test_malformed_users_file_fails_at_start(tmp_path, content, line, what):
    f = tmp_path / "users"
    f.write_text(content)
    p = subprocess.run([trove_bin(), "serve", "--port", "0", "--users", str(f)], stdin=subprocess.DEVNULL,
                       capture_output=True, text=True, timeout=30)
    assert p.returncode != 0
    assert "%s:%d:" % (f, line) in p.stderr and what in p.stderr, p.stderr
    p = subprocess.run([trove_bin(), "serve", "--port", "0", "--users", str(tmp_path / "none")],
                       stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=30)
    assert p.returncode != 0 and str(tmp_path / "none") in p.stderr


def test_public_address_without_users_warns(make_server):
    # 127.0.0.2 is still this machine, but not one of the addresses that
    # count as local-only (127.0.0.1, ::1, localhost)
    s = make_server("--host", "127.0.0.2")
    rc, log = s.stop()
    assert rc == 0 and "warning" in log and "--users" in log, log
    s = make_server()
    rc, log = s.stop()
    assert "warning" not in log
