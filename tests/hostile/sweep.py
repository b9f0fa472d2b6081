#!/usr/bin/python3
"""
sweep.py — hostile values in every numeric place of every request that
OpenSearch's YAML REST suites send, against a running trove.

Why
    A negative rescore window_size once killed `trove serve`: one request
    took every index and every clone down. The suites in ../shared/compat
    send thousands of realistic requests, each after a setup that made the
    indices, mappings and documents it needs. This sweep replays them with
    tests/compat/yamlrest.py and, after each `do` step, sends variants of
    that step's request in which one number at a time is replaced by a
    hostile value, so each parameter is reached in the state where it does
    real work.

What a variant is
    - Body: every number in the body (in each line of an NDJSON body), and
      every string that reads as a number, is replaced in turn by each value
      of BODY_VALUES (negative, zero, the int and long boundaries and one
      past them, huge and tiny doubles, a fraction, a string, a boolean,
      null, an array, an object).
    - URL: every numeric or time parameter of the API's spec (given or not)
      gets each value of PARAM_VALUES.
    Variants run on a copy-on-write clone of the node taken just before
    (POST /_trove/clones, then the base is unfrozen), so they never disturb
    the YAML test that continues on the base; the clone is deleted after
    the step.

What is checked (a finding each)
    - the server died, or a request took longer than REQUEST_TIMEOUT;
    - a sanitizer report on the server's stderr (run an ASan/UBSan build);
    - a 5xx answer (OpenSearch answers 500 only for its own bugs and a few
      documented cases; each is reviewed and listed in ALLOWED_5XX with why);
    - a body that is not one JSON value, or an error body without
      error.type and status;
    - a 2xx answer to a numeric or time URL parameter of "abc": every such
      parameter OpenSearch reads fails on it, so trove ignored it.
    Output: one line per finding, then `N passed, N failed` where passed
    counts clean variants. Exit 0 when there is no finding.

Run
    /usr/bin/python3 tests/hostile/sweep.py [--trove build-asan/trove] [FILTER ...]
    --limit N caps the variants per step (default 200; an even spread).
"""
import argparse
import json
import os
import sys
import time
import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "compat"))
import yamlrest as y  # noqa: E402

REQUEST_TIMEOUT = 10.0

BODY_VALUES = [-1, 0, -2147483648, 2147483647, 2147483648, -2147483649, 9223372036854775807,
               9223372036854775808, -9223372036854775809, 1e308, -1e308, 4.9e-324, 1.5, -0.5,
               "abc", "", True, None, [], {}]
PARAM_VALUES = ["-1", "0", "-2147483648", "2147483648", "9223372036854775808", "1.5", "1e400",
                "abc", "", "-0", "NaN", "-1s", "9999999999d", "1nanos"]
NUMERIC_PARAM_TYPES = {"number", "int", "integer", "long", "double", "float", "time"}

# 5xx answers that are OpenSearch's own: (api, reason substring) → why.
ALLOWED_5XX = {
    ("search", "too_many_buckets_exception"): "search.max_buckets: OpenSearch answers 503",
    ("msearch", "too_many_buckets_exception"): "search.max_buckets: OpenSearch answers 503",
    ("search", "cannot use `collapse` in a scroll context"): "OpenSearch's search_exception is a 500",
}


def numeric_leaves(value, path=()):
    """Paths of the numbers (and numeric strings) inside a JSON value."""
    if isinstance(value, bool) or value is None:
        return
    if isinstance(value, (int, float)):
        yield path
    elif isinstance(value, str):
        try:
            float(value)
            if value.strip():
                yield path
        except ValueError:
            pass
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from numeric_leaves(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from numeric_leaves(v, path + (i,))


def replaced(value, path, new):
    if not path:
        return new
    if isinstance(value, dict):
        out = dict(value)
    else:
        out = list(value)
    out[path[0]] = replaced(value[path[0]], path[1:], new)
    return out


class SweepRunner(y.Runner):
    def __init__(self, *a, limit=60, **kw):
        super().__init__(*a, **kw)
        self.limit = limit
        self.findings = []
        self.clean = 0
        self.current = ""
        self.last = None
        self.swept_params = set()

    def build_request(self, api_name, args, headers):
        out = super().build_request(api_name, dict(args), headers)
        self.last = (api_name, out)
        return out

    def do(self, spec_step):
        self.last = None
        self.response = None
        try:
            super().do(spec_step)
        finally:
            # a step OpenSearch itself answers with a 5xx (collapse in a
            # scroll) is not swept: its variants would only repeat it
            if self.last is not None and not (self.response and self.response.status >= 500):
                self.sweep(*self.last)

    # -- variants -------------------------------------------------------

    def variants(self, api_name, method, path, query, body, ctype):
        spec = self.specs.get(api_name) or {}
        given = dict(query)
        params = spec.get("params") or {}
        # URL parameters depend little on the state: each (API, method,
        # path shape) gets them once per run
        shape = (api_name, method, tuple(sorted(k for k, _ in query)))
        fresh = shape not in self.swept_params
        self.swept_params.add(shape)
        for name, p in params.items() if fresh else ():
            if (p or {}).get("type") in NUMERIC_PARAM_TYPES:
                for v in PARAM_VALUES:
                    q = [(k, x) for k, x in query if k != name] + [(name, v)]
                    yield f"?{name}={v}", q, body, v == "abc"
        for name, v in (given.items() if fresh else ()):
            if name in params or name == "error_trace":
                continue
            try:
                float(v)
            except ValueError:
                continue
            for nv in PARAM_VALUES:
                q = [(k, x) for k, x in query if k != name] + [(name, nv)]
                yield f"?{name}={nv}", q, body, False
        if not body:
            return
        lines = body.split(b"\n") if ctype and "ndjson" in ctype else [body]
        for li, line in enumerate(lines):
            try:
                doc = json.loads(line)
            except ValueError:
                continue
            for leaf in numeric_leaves(doc):
                for v in BODY_VALUES:
                    new = json.dumps(replaced(doc, leaf, v), separators=(",", ":")).encode()
                    nl = list(lines)
                    nl[li] = new
                    where = ".".join(str(p) for p in leaf) or "(body)"
                    yield f"{where}={json.dumps(v)}" + (f" (line {li})" if len(lines) > 1 else ""), \
                        query, b"\n".join(nl), False

    def sweep(self, api_name, built):
        method, path, query, body, ctype, _ = built
        all_v = list(self.variants(api_name, method, path, query, body, ctype))
        if not all_v:
            return
        if len(all_v) > self.limit:  # a deterministic spread over the variants
            step = len(all_v) / self.limit
            all_v = [all_v[int(i * step)] for i in range(self.limit)]
        s = self.server
        r = s.request("POST", "/_trove/clones")
        if r.status != 201:
            raise y.TestFailure(f"sweep: cannot clone: {r.summary()}")
        clone = r.parsed
        s.request("POST", "/_trove/base/unfreeze")
        base_url = s.url
        try:
            s.url = clone["url"]
            for what, q, b, must_fail in all_v:
                headers = {"Content-Type": ctype} if b else {}
                label = f"{api_name} {method} {path} {what}"
                t0 = time.monotonic()
                try:
                    resp = s.request(method, path, q, b, headers)
                except y.ServerGone as e:
                    s.url = base_url
                    raise y.ServerGone(f"{label}: {e}")
                took = time.monotonic() - t0
                problem = self.check(api_name, method, resp, took)
                if not problem and must_fail and resp.status < 300:
                    # no numeric or time parameter of any API takes "abc"
                    problem = f"accepted: {resp.status}"

                if problem:
                    self.findings.append((self.current, label, problem))
                else:
                    self.clean += 1
        finally:
            s.url = base_url
            s.request("DELETE", f"/_trove/clones/{clone['id']}")

    @staticmethod
    def check(api_name, method, resp, took):
        if took > REQUEST_TIMEOUT:
            return f"took {took:.1f}s"
        if method == "HEAD":
            return None
        if resp.status >= 500:
            reason = resp.summary()
            for (api, part), _why in ALLOWED_5XX.items():
                if api == api_name and part in reason:
                    return None
            return f"5xx: {y.one_line(reason, 200)}"
        ctype = resp.header("content-type") or ""
        if "json" not in ctype:
            return None  # _cat text and the like
        try:  # duplicate keys are JSON (OpenSearch writes them: percentile keys)
            json.loads(resp.text)
        except ValueError:
            return f"body is not JSON: {resp.text[:120]!r}"
        if resp.status >= 400:
            body = resp.parsed
            err = body.get("error") if isinstance(body, dict) else None
            if isinstance(err, dict):
                if "type" not in err or "status" not in body:
                    return f"error without type/status: {resp.text[:160]}"
        return None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--compat", default=str(y.REPO_ROOT / ".." / "shared" / "compat"))
    ap.add_argument("--trove", default=None)
    ap.add_argument("--limit", type=int, default=200)
    ap.add_argument("filters", nargs="*")
    args = ap.parse_args(argv)
    compat = Path(args.compat)
    test_dir, spec_dir = compat / "opensearch-rest-yaml", compat / "opensearch-rest-api-spec"
    if not test_dir.is_dir():
        print(f"sweep: no YAML suites under {compat}: skipped", file=sys.stderr)
        return 77  # CTest's SKIP_RETURN_CODE
    y.REQUEST_TIMEOUT = REQUEST_TIMEOUT * 3
    specs = y.load_spec(spec_dir)
    skips = y.read_list_file(test_dir / "SKIP.txt")
    binary = args.trove or os.environ.get("TROVE_BIN") or str(y.REPO_ROOT / "build" / "trove")
    server = y.Server(binary=binary)
    runner = SweepRunner(specs, server, None, False, limit=args.limit)
    server.start()
    t0 = time.monotonic()
    crashes = 0
    try:
        for suite in y.collect(test_dir):
            for name, steps in suite.tests:
                key = f"{suite.rel} :: {name}"
                if args.filters and not any(f in key for f in args.filters):
                    continue
                if skips.get(key, skips.get(suite.rel)) is not None or suite.error:
                    continue
                try:
                    if y.first_skip(suite.setup) or y.first_skip(suite.teardown) or y.first_skip(steps):
                        continue
                except y.SuiteError:
                    continue
                runner.current = key
                status, why = y.run_test(runner, server, suite, name, steps)
                if why and ("exited" in why or "did not answer" in why or "connection failed" in why):
                    crashes += 1
                    runner.findings.append((key, "server gone", why))
    finally:
        server.stop()
    for key, label, problem in runner.findings:
        print(f"FINDING {key} :: {label}  # {problem}")
    if server.sanitizer:
        print(f"\nthe server logged sanitizer reports ({len(server.sanitizer)} lines kept):")
        for line in server.sanitizer:
            print("  " + line)
    failed = len(runner.findings) + (1 if server.sanitizer else 0)
    print(f"sweep: {time.monotonic() - t0:.0f}s, {crashes} server deaths")
    print(f"{runner.clean} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
