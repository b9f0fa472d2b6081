#!/usr/bin/python3
"""
yaml_requests.py — seeds for fuzz_api_request from OpenSearch's YAML REST
suites, and the request fuzzer's dictionary.

Seeds: every `do` step of every test (setup and teardown included) in
../shared/compat/opensearch-rest-yaml, turned into the HTTP request that
tests/compat/yamlrest.py would send (the API's spec picks the method and
path; stashed values stay as their `$name` text), written in the fuzz
target's input format: one byte for the method (its index in the target's
method table), the request target (path and query string), a newline, the
body (files yaml-*). Each test also gives one sequence seed (yamlseq-*):
its setup's requests and its own, separated by 0x1E, so mutations start
from the state the test builds. Identical inputs are written once; file
names are a hash of the content, so re-running adds only what is new.

Dictionary (fuzz/api_request.dict): the API specs' path segments and
parameter names, and every object key that appears in a request body of
the suites (query, aggregation and mapping vocabulary), as libFuzzer
`"token"` lines.

Run from the repository root:
    /usr/bin/python3 fuzz/seeds/yaml_requests.py [--compat DIR]
"""
import argparse
import hashlib
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "compat"))
import yamlrest as y  # noqa: E402

MAX_STEPS = 24  # fuzz_api_request.c runs at most this many requests of a sequence
METHODS = ["GET", "PUT", "POST", "DELETE", "HEAD", "PATCH", "OPTIONS", "BOGUS"]  # fuzz_api_request.c's table


def do_steps(steps):
    for step in steps or []:
        if isinstance(step, dict) and "do" in step and isinstance(step["do"], dict):
            yield step["do"]


def body_keys(value, out):
    if isinstance(value, dict):
        for k, v in value.items():
            out.add(str(k))
            body_keys(v, out)
    elif isinstance(value, list):
        for v in value:
            body_keys(v, out)


def request_bytes(runner, do, words):
    """One do step as the fuzz target's input bytes (None if it cannot be built)."""
    step = dict(do)
    for k in ("catch", "warnings", "allowed_warnings", "warnings_regex", "allowed_warnings_regex",
              "node_selector"):
        step.pop(k, None)
    headers = {str(k): y.param_text(v) for k, v in (step.pop("headers", None) or {}).items()}
    if not step:
        return None
    api_name, a = list(step.items())[-1]
    try:
        method, path, query, body, _, _ = runner.build_request(api_name, dict(a or {}), headers)
        for b in y.parse_bodies((a or {}).get("body")) if isinstance(a, dict) else []:
            body_keys(b, words)
    except (y.SuiteError, KeyError, TypeError, ValueError):
        return None
    qs = "&".join(f"{k}={v}" for k, v in query if k != "error_trace")
    target = path + ("?" + qs if qs else "")
    return bytes([METHODS.index(method)]) + target.encode() + b"\n" + (body or b"")


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--compat", default=str(ROOT / ".." / "shared" / "compat"))
    args = ap.parse_args(argv)
    compat = Path(args.compat)
    specs = y.load_spec(compat / "opensearch-rest-api-spec")
    runner = y.Runner(specs, server=None)
    out_dir = ROOT / "fuzz" / "corpus" / "api_request"
    out_dir.mkdir(parents=True, exist_ok=True)
    words = set()
    written = seen = 0

    def write(prefix, data):
        nonlocal written
        name = out_dir / (prefix + hashlib.sha1(data).hexdigest()[:16])
        if not name.exists():
            name.write_bytes(data)
            written += 1

    for suite in y.collect(compat / "opensearch-rest-yaml"):
        for _, test_steps in suite.tests:
            # one sequence seed per test: its setup's requests, then its own
            seq = []
            for do in list(do_steps(suite.setup)) + list(do_steps(test_steps)):
                data = request_bytes(runner, do, words)
                if data:
                    seq.append(data)
            if len(seq) > 1:
                write("yamlseq-", b"\x1e".join(seq[:MAX_STEPS]))
        sections = [suite.setup, suite.teardown] + [steps for _, steps in suite.tests]
        for steps in sections:
            for do in do_steps(steps):
                data = request_bytes(runner, do, words)
                if data:
                    seen += 1
                    write("yaml-", data)
    for spec in specs.values():
        for p in spec.get("url", {}).get("paths", []):
            for seg in p["path"].split("/"):
                if seg and not seg.startswith("{"):
                    words.add(seg)
        for name in (spec.get("params") or {}):
            words.add(name)
            words.add(name + "=")
    words = sorted(w for w in words if 1 < len(w) <= 40 and re.fullmatch(r"[\x21-\x7e]+", w) and '"' not in w
                   and "\\" not in w)
    with open(ROOT / "fuzz" / "api_request.dict", "w", encoding="ascii") as f:
        f.write("# fuzz_api_request's dictionary: the API specs' path segments and parameters and the\n")
        f.write("# body keys of OpenSearch's YAML REST suites (made by fuzz/seeds/yaml_requests.py)\n")
        for w in words:
            f.write(json.dumps(w) + "\n")
    print(f"{seen} requests, {written} new seeds, {len(words)} dictionary words")


if __name__ == "__main__":
    main()
