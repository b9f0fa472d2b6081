"""
Slow and greedy clients cannot starve the others: many connections
trickling a request head a byte at a time (slowloris) leave a normal
client's requests answered promptly; a head that takes longer than
--header-timeout closes its connection; past --max-connections a new
connection is closed at once while the open ones keep working; and the
breakers answer 429 for a body past the in-flight limit over real HTTP.
Every loop here is bounded in count and time.
"""
import json
import socket
import time

import requests


def connect(server):
    s = socket.create_connection((server.host, server.port), timeout=5)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def closed_by_peer(s, wait):
    """Does the server close s within wait seconds?"""
    s.settimeout(wait)
    try:
        return s.recv(1) == b""
    except socket.timeout:
        return False
    except (ConnectionResetError, BrokenPipeError):
        return True


def test_slowloris_does_not_starve_others(make_server):
    srv = make_server("--threads", "2")
    slow = [connect(srv) for _ in range(200)]
    head = b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 40
    s = requests.Session()
    latencies = []
    t_end = time.monotonic() + 4
    i = 0
    while time.monotonic() < t_end:
        for c in slow:  # one more byte on every slow connection
            try:
                c.sendall(head[i % len(head):i % len(head) + 1])
            except OSError:
                pass
        i += 1
        t0 = time.monotonic()
        r = s.get(srv.url + "/_cluster/health")
        latencies.append(time.monotonic() - t0)
        assert r.status_code == 200
    latencies.sort()
    assert len(latencies) >= 20
    assert latencies[len(latencies) * 99 // 100 - 1] < 0.5, latencies[-5:]  # starved would be seconds
    for c in slow:
        c.close()
    s.close()


def test_header_timeout_closes_a_trickling_head(make_server):
    srv = make_server("--header-timeout", "1")
    c = connect(srv)
    c.sendall(b"GET / HTTP/1.1\r\n")
    time.sleep(1.3)
    try:
        c.sendall(b"X")  # the next byte past the timeout: the server closes
    except OSError:
        pass
    assert closed_by_peer(c, 3)
    c.close()
    # a whole request, however slowly it started, within the timeout works
    c = connect(srv)
    c.sendall(b"GET / HTTP/1.1\r\n")
    time.sleep(0.3)
    c.sendall(b"Host: x\r\n\r\n")
    c.settimeout(5)
    assert c.recv(12).startswith(b"HTTP/1.1 200")
    c.close()


def test_connection_limit(make_server):
    srv = make_server("--max-connections", "20")
    held = [connect(srv) for _ in range(20)]
    for c in held:  # the 20 are served
        c.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        c.settimeout(5)
        assert c.recv(12).startswith(b"HTTP/1.1 200")
    extra = connect(srv)
    assert closed_by_peer(extra, 3)  # the 21st is closed on accept
    extra.close()
    held.pop().close()
    time.sleep(0.3)
    r = requests.get(srv.url + "/")  # a place is free again
    assert r.status_code == 200
    for c in held:
        c.close()


def test_breaker_over_http(make_server):
    srv = make_server("--heap", "64mb")
    s = requests.Session()
    r = s.put(srv.url + "/_cluster/settings",
              json={"transient": {"network.breaker.inflight_requests.limit": "1mb"}})
    assert r.status_code == 200
    body = "\n".join(json.dumps(x) for _ in range(3000) for x in ({"index": {"_index": "b"}}, {"t": "x" * 200}))
    r = s.post(srv.url + "/_bulk", data=body + "\n", headers={"Content-Type": "application/x-ndjson"})
    assert r.status_code == 429
    err = r.json()["error"]
    assert err["type"] == "circuit_breaking_exception"
    assert err["reason"].startswith("[in_flight_requests] Data too large, data for [<http_request>] would be [")
    assert err["bytes_limit"] == 1048576 and err["durability"] == "TRANSIENT"
    stats = s.get(srv.url + "/_nodes/stats/breaker").json()
    node = next(iter(stats["nodes"].values()))
    assert node["breakers"]["in_flight_requests"]["tripped"] == 1
    assert node["breakers"]["in_flight_requests"]["estimated_size_in_bytes"] == 0
    s.close()


def read_response(s, wait, data=b""):
    """One HTTP/1.1 response with a Content-Length body, after the bytes
    already read (data): (status, body, the bytes read past it)."""
    s.settimeout(wait)
    while b"\r\n\r\n" not in data:
        chunk = s.recv(65536)
        assert chunk, "closed before a response"
        data += chunk
    head, rest = data.split(b"\r\n\r\n", 1)
    length = int([h.split(b":")[1] for h in head.split(b"\r\n") if h.lower().startswith(b"content-length:")][0])
    while len(rest) < length:
        chunk = s.recv(65536)
        assert chunk, "closed inside a body"
        rest += chunk
    return int(head.split(b" ")[1]), rest[:length], rest[length:]


def test_waiting_health_requests_do_not_block_the_loop(make_server):
    # one event loop: a health request that waits must not stop it serving
    srv = make_server("--threads", "1")
    waiters = [connect(srv) for _ in range(20)]
    for w in waiters:
        w.sendall(b"GET /_cluster/health/later?timeout=20s HTTP/1.1\r\nHost: x\r\n\r\n")
    # a pipelined request behind a waiting one keeps its order
    piped = connect(srv)
    piped.sendall(b"GET /_cluster/health/later?timeout=20s HTTP/1.1\r\nHost: x\r\n\r\n"
                  b"GET /_cat/indices?h=index HTTP/1.1\r\nHost: x\r\n\r\n")
    gone = connect(srv)  # one that leaves while it waits
    gone.sendall(b"GET /_cluster/health/later?timeout=20s HTTP/1.1\r\nHost: x\r\n\r\n")
    time.sleep(0.3)
    gone.close()
    s = requests.Session()
    latencies = []
    for _ in range(20):
        t0 = time.monotonic()
        assert s.get(srv.url + "/").status_code == 200
        latencies.append(time.monotonic() - t0)
    assert max(latencies) < 0.5, latencies  # blocked would be 20 s
    t0 = time.monotonic()
    assert s.put(srv.url + "/later", json={"settings": {"number_of_replicas": 0}}).status_code == 200
    left = b""
    for w in waiters + [piped]:
        status, body, left = read_response(w, 5)
        assert status == 200
        h = json.loads(body)
        assert h["status"] == "green" and h["timed_out"] is False
    assert time.monotonic() - t0 < 2  # answered when the index appeared, not at the timeout
    status, body, _ = read_response(piped, 5, left)
    assert (status, body.split()) == (200, [b"later"])
    # a condition that never holds answers at its timeout, 408 timed_out
    t0 = time.monotonic()
    r = s.get(srv.url + "/_cluster/health/never", params={"timeout": "700ms"})
    took = time.monotonic() - t0
    assert r.status_code == 408 and r.json()["timed_out"] is True and r.json()["status"] == "red"
    assert 0.6 < took < 3, took
    r = s.get(srv.url + "/_cluster/health", params={"wait_for_status": "green", "timeout": "1x"})
    assert r.status_code == 400
    assert r.json()["error"]["reason"] == ("failed to parse setting [timeout] with value [1x] as a time value: "
                                           "unit is missing or unrecognized")
    for w in waiters + [piped]:
        w.close()
    s.close()
