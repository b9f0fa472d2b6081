#!/usr/bin/python3
"""
yamlrest.py — runs OpenSearch's YAML REST tests against `trove serve`.

What it does
    Starts one fresh `trove serve --port 0` per run (binary from $TROVE_BIN,
    default build/trove), reads the URL it logs on stderr, then runs every
    test of every `<suite>/<file>.yml` under COMPAT/opensearch-rest-yaml/,
    resolving API names through the JSON specs in
    COMPAT/opensearch-rest-api-spec/. Between tests it wipes the node the way
    OpenSearch's Java runner does (data streams, all indices with
    expand_wildcards=open,closed,hidden, legacy/composable/component
    templates, cluster settings), all through the REST API.

    Output: one line per test, `PASS|FAIL|SKIP suite/file.yml :: name  # why`,
    then `N passed, N failed, N skipped`. Exit status 0 when every failure is
    listed in tests/compat/expected-failures.txt and no listed test passes;
    1 otherwise (it prints which lines to add or remove); 2 when the run
    itself could not happen (no server, no test directory).
    `--update-expected` rewrites that file with the current failures (a test
    still failing keeps its line's hand-written reason). The server's stderr
    is watched for sanitizer reports (run it with an ASan/UBSan build): any
    report fails the run. A server that dies or hangs fails the test it was
    running (its log tail goes to stderr) and is restarted for the next one.

The format, as the Java runner (OpenSearchClientYamlSuiteTestCase) reads it
    A file is a YAML stream; each document maps section names to lists of
    steps. `setup` runs before and `teardown` after every test of the file
    (teardown also when the test failed); a `skip` first in setup/teardown
    skips the whole file, first in a test skips that test. Steps:
      do          API call. The API name selects a spec; the path is one whose
                  {parts} are all given and that uses the most of them; other
                  params go to the query string (lists joined with ",",
                  booleans lowercase); `error_trace=true` is added as the Java
                  runner does. body: a map is one JSON body; a string is read
                  as a stream of JSON values; a list is one body per item.
                  More than one body (or a bulk-serialised API) is sent as
                  NDJSON, one body per line, each followed by "\n". `ignore`
                  (a client param, not sent) lists statuses that are not
                  errors; HEAD's 404 is never an error. catch: bad_request 400,
                  unauthorized 401, forbidden 403, missing 404,
                  request_timeout 408, conflict 409, unavailable 503, request
                  any other >= 400, param (no request is sent: the Java client
                  rejects it itself), /regex/ (>= 400 and the Java toString of
                  the response's `error` contains a match).
      match       exact: numbers of different types compare as doubles at the
                  top level; below it, maps and lists compare with Java's
                  equals (so 1 and 1.0 differ, key order does not matter).
                  "/regex/" (trimmed): a find() with Java's COMMENTS flag
                  (whitespace and #-comments in the pattern ignored). Optional
                  `epsilon`.
      is_true / is_false, length, gt, gte, lt, lte, contains (a map
                  expected in a list of maps), set, transform_and_set
                  (#base64EncodeCredentials(a,b)).
    Paths split on "." (`\\.` escapes a dot), numeric parts index lists, a
    part naming a stashed value (`$x`) is replaced by it, `_arbitrary_key_`
    picks a map's first key. Stash: `$name`, `$name.path`, `${name}` inside
    strings, `$body` is the last response body; stashed values are replaced in
    params, headers, bodies (keys and values) and expected values.
    skip.version is evaluated against OpenSearch 3.1.0, the version trove
    reports, with OpenSearch's ordering: versions whose major is above 3 are
    legacy Elasticsearch versions and sort before 1.0.0; an open upper bound
    means the current version; "all" skips always.

Deviations from the Java runner (deliberate, listed here so nobody trusts more
than this checks)
    - `warnings` are not checked to be present (trove sends no deprecation
      warnings); a Warning header that is neither expected nor allowed still
      fails the test, as in Java.
    - The method for a path is the first one its spec lists (the Java runner
      picks one at random, and sometimes sends a GET body as ?source=); pass
      --seed N to pick randomly with a fixed seed.
    - Bodies are always JSON unless a Content-Type header asks for YAML (the
      Java runner sometimes randomises to YAML/CBOR/SMILE).
    - A bulk-serialised API gets NDJSON even for a single body.
    - Unknown params are sent rather than rejected client-side (the spec set
      here is a subset and may lag the tests).
    - Template/settings wipe steps that trove answers with an error are
      ignored. When trove rejects the Java runner's index wipe, the run says
      so once in its summary and falls back to `DELETE /*` and `DELETE
      /_all`; a test fails only when indices remain after that (checked with
      `GET /_all`), so one unsupported wipe parameter does not leak state
      into every later test.
    - node_selector: the single node has version 3.1.0; a version selector
      that excludes it fails the step, an attribute selector always does.

Alternatives rejected
    Running OpenSearch's Java runner: needs a JVM and Gradle, which the build
    machine does not have. pytest parametrisation: the summary/exit rules
    (expected failures, stale entries, --update-expected) are simpler as a
    plain program, and the runner must work with only python3-yaml and
    python3-requests.

Usage
    tests/compat/yamlrest.py [--compat DIR] [--url URL | --trove BIN]
                             [--expected FILE] [--update-expected]
                             [--seed N] [-v] [FILTER ...]
    FILTER selects tests whose "suite/file.yml :: name" contains it.
"""

import argparse
import base64
import json
import os
import random
import re
import subprocess
import sys
import threading
import time
import urllib.parse
from collections import deque
from decimal import Decimal
from pathlib import Path

import requests
import yaml

REPO_ROOT = Path(__file__).resolve().parents[2]
TROVE_VERSION = "3.1.0"  # the OpenSearch version trove reports in GET /
REQUEST_TIMEOUT = 15.0   # seconds for one HTTP request
START_TIMEOUT = 15.0     # seconds for the server to log its URL

# Test-runner features (skip.features) this runner implements. The Java
# runner's list, with warnings_regex/allowed_warnings_regex added.
SUPPORTED_FEATURES = {
    "catch_unauthorized", "default_shards", "embedded_stash_key", "headers",
    "node_selector", "stash_in_key", "stash_in_path", "stash_path_replace",
    "warnings", "yaml", "contains", "transform_and_set", "arbitrary_key",
    "allowed_warnings", "warnings_regex", "allowed_warnings_regex",
    "spi_on_classpath_jdk9",
}

CATCHES = {
    "bad_request": ("400", lambda s: s == 400),
    "unauthorized": ("401", lambda s: s == 401),
    "forbidden": ("403", lambda s: s == 403),
    "missing": ("404", lambda s: s == 404),
    "request_timeout": ("408", lambda s: s == 408),
    "conflict": ("409", lambda s: s == 409),
    "unavailable": ("503", lambda s: s == 503),
    "request": ("4xx|5xx", lambda s: s >= 400 and s not in (400, 401, 403, 404, 408, 409)),
}

# APIs whose spec is not in the spec directory: the runner knows their routes.
BUILTIN_SPECS = {
    "info": {"url": {"paths": [{"path": "/", "methods": ["GET"]}]}, "params": {}},
    "ping": {"url": {"paths": [{"path": "/", "methods": ["HEAD"]}]}, "params": {}},
    "indices.refresh": {
        "url": {"paths": [
            {"path": "/_refresh", "methods": ["POST", "GET"]},
            {"path": "/{index}/_refresh", "methods": ["POST", "GET"],
             "parts": {"index": {"type": "list"}}}]},
        "params": {"ignore_unavailable": {}, "allow_no_indices": {}, "expand_wildcards": {}}},
    "indices.flush": {
        "url": {"paths": [
            {"path": "/_flush", "methods": ["POST", "GET"]},
            {"path": "/{index}/_flush", "methods": ["POST", "GET"],
             "parts": {"index": {"type": "list"}}}]},
        "params": {"force": {}, "wait_if_ongoing": {}, "ignore_unavailable": {},
                   "allow_no_indices": {}, "expand_wildcards": {}}},
    "field_caps": {
        "url": {"paths": [
            {"path": "/_field_caps", "methods": ["GET", "POST"]},
            {"path": "/{index}/_field_caps", "methods": ["GET", "POST"],
             "parts": {"index": {"type": "list"}}}]},
        "params": {"fields": {"type": "list"}, "ignore_unavailable": {}, "allow_no_indices": {},
                   "expand_wildcards": {}, "include_unmapped": {}}},
    "cat.health": {
        "url": {"paths": [{"path": "/_cat/health", "methods": ["GET"]}]},
        "params": {"format": {}, "h": {"type": "list"}, "help": {}, "s": {"type": "list"},
                   "time": {}, "ts": {}, "v": {}}},
    "cluster.post_voting_config_exclusions": {
        "url": {"paths": [{"path": "/_cluster/voting_config_exclusions", "methods": ["POST"]}]},
        "params": {"node_ids": {}, "node_names": {}, "timeout": {}}},
    "cluster.delete_voting_config_exclusions": {
        "url": {"paths": [{"path": "/_cluster/voting_config_exclusions", "methods": ["DELETE"]}]},
        "params": {"wait_for_removal": {}}},
}


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------

class TestFailure(Exception):
    """An assertion about trove's behaviour did not hold."""


class SuiteError(Exception):
    """The test itself cannot be run as written (bad syntax, unknown API)."""


class ServerGone(Exception):
    """The connection to the server failed (crash, hang, refused)."""


# ---------------------------------------------------------------------------
# YAML with Jackson's scalar rules
# ---------------------------------------------------------------------------

class JacksonLikeLoader(yaml.SafeLoader):
    """SafeLoader resolving scalars as the Java runner's YAML parser does:
    booleans only true/false (any case), no timestamps (dates stay strings),
    no sexagesimal or octal integers."""


JacksonLikeLoader.yaml_implicit_resolvers = {
    k: [(tag, rx) for tag, rx in v
        if tag not in ("tag:yaml.org,2002:bool", "tag:yaml.org,2002:int",
                       "tag:yaml.org,2002:timestamp", "tag:yaml.org,2002:float")]
    for k, v in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
JacksonLikeLoader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
    list("tTfF"))
JacksonLikeLoader.add_implicit_resolver(
    "tag:yaml.org,2002:int", re.compile(r"^(?:[-+]?(?:0|[1-9][0-9]*)|0x[0-9a-fA-F]+)$"),
    list("-+0123456789"))
JacksonLikeLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^(?:[-+]?(?:[0-9]+\.[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?"
               r"|[-+]?[0-9]+[eE][-+]?[0-9]+|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"),
    list("-+0123456789."))


def _construct_int(loader, node):
    text = loader.construct_scalar(node)
    return int(text, 16) if text.startswith("0x") else int(text)


JacksonLikeLoader.add_constructor("tag:yaml.org,2002:int", _construct_int)


def load_yaml_stream(text):
    return list(yaml.load_all(text, Loader=JacksonLikeLoader))


# ---------------------------------------------------------------------------
# Java value semantics: toString, equals, regexes
# ---------------------------------------------------------------------------

def java_double_str(x):
    """Double.toString: fixed notation in [1e-3, 1e7), else d.dddE±n."""
    if x != x:
        return "NaN"
    if x in (float("inf"), float("-inf")):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "-0.0" if str(x).startswith("-") else "0.0"
    d = Decimal(repr(x))
    if 1e-3 <= abs(x) < 1e7:
        s = format(d, "f")
        return s if "." in s else s + ".0"
    sign, digits, exp = d.as_tuple()
    e10 = len(digits) + exp - 1
    ds = "".join(map(str, digits)).rstrip("0") or "0"
    return ("-" if sign else "") + ds[0] + "." + (ds[1:] or "0") + "E" + str(e10)


def java_str(v):
    """What Java's toString prints for a parsed JSON/YAML value."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return java_double_str(v)
    if isinstance(v, dict):
        return "{" + ", ".join(f"{java_str(k)}={java_str(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(java_str(x) for x in v) + "]"
    return str(v)


def java_equals(a, b):
    """Object.equals over parsed values: Integer(1) != Double(1.0), maps
    compare as sets of entries, lists in order."""
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, int) and isinstance(b, int):
        return a == b
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (a != a and b != b)
    if isinstance(a, str) and isinstance(b, str):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(java_equals(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(java_equals(x, y) for x, y in zip(a, b))
    return False


def type_name(v):
    return {type(None): "null", bool: "boolean", int: "integer", float: "double", str: "string",
            dict: "object", list: "array"}.get(type(v), type(v).__name__)


def short(v, limit=80):
    s = json.dumps(v, ensure_ascii=False, default=str)
    return s if len(s) <= limit else s[:limit - 3] + "..."


def clip(text, limit):
    text = str(text)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def first_difference(path, actual, expected):
    """Where two values differ, as a short sentence (Java's NotEqualMessageBuilder, briefly)."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        for k in expected:
            if k not in actual:
                return f"[{path}.{k}] missing (expected {short(expected[k])})"
            d = first_difference(f"{path}.{k}", actual[k], expected[k])
            if d:
                return d
        for k in actual:
            if k not in expected:
                return f"[{path}.{k}] unexpected (got {short(actual[k])})"
        return None
    if isinstance(expected, list) and isinstance(actual, list):
        if len(expected) != len(actual):
            return f"[{path}] expected {short(expected)}, got {short(actual)}"
        for i, (x, y) in enumerate(zip(actual, expected)):
            d = first_difference(f"{path}.{i}", x, y)
            if d:
                return d
        return None
    if java_equals(actual, expected):
        return None
    if type_name(actual) != type_name(expected) and actual is not None:
        return (f"[{path}] expected {type_name(expected)} {short(expected)}, "
                f"got {type_name(actual)} {short(actual)}")
    return f"[{path}] expected {short(expected)}, got {short(actual)}"


_JAVA_CLASSES = {
    "Alpha": "a-zA-Z", "Digit": "0-9", "Alnum": "a-zA-Z0-9", "Upper": "A-Z", "Lower": "a-z",
    "Punct": re.escape("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"), "Space": " \\t\\n\\x0b\\f\\r",
    "XDigit": "0-9a-fA-F", "L": "^\\W\\d_", "N": "\\d",
}


def java_regex(pattern, comments=False):
    """Compiles a java.util.regex pattern with Python's re. Handles what the
    two disagree on in practice: \\Q..\\E quoting, \\z / \\Z, \\h, a few
    \\p{..} classes, and COMMENTS mode also ignoring whitespace inside
    character classes (Python's VERBOSE keeps it there)."""
    out = []
    i, n = 0, len(pattern)
    in_class = 0
    while i < n:
        c = pattern[i]
        if c == "\\" and i + 1 < n:
            d = pattern[i + 1]
            if d == "Q":
                j = pattern.find("\\E", i + 2)
                j = n if j < 0 else j
                lit = pattern[i + 2:j]
                out.append("".join("\\" + ch if not ch.isalnum() else ch for ch in lit))
                i = j + 2
                continue
            if d == "z":
                out.append("\\Z")
            elif d == "Z":
                out.append("(?=\\n?\\Z)")
            elif d == "h":
                out.append("[ \\t\\xa0\\u1680\\u180e\\u2000-\\u200a\\u202f\\u205f\\u3000]"
                           if not in_class else " \\t\\xa0")
            elif d in "pP" and i + 2 < n and pattern[i + 2] == "{":
                j = pattern.find("}", i + 3)
                name = pattern[i + 3:j]
                name = name[2:] if name.startswith("Is") else name
                body = _JAVA_CLASSES.get(name)
                if body is None:
                    raise SuiteError(f"regex class \\{d}{{{name}}} is not supported by this runner")
                neg = (d == "P") != body.startswith("^")
                body = body.lstrip("^")
                out.append(("[^" if neg else "[") + body + "]")
                i = j + 1
                continue
            else:
                out.append(c + d)
            i += 2
            continue
        if c == "[":
            in_class += 1
        elif c == "]" and in_class:
            in_class -= 1
        elif comments and in_class and c in " \t\n\r\f\x0b":
            i += 1
            continue
        elif comments and in_class and c == "#":
            out.append("\\#")
            i += 1
            continue
        out.append(c)
        i += 1
    flags = re.VERBOSE if comments else 0
    try:
        return re.compile("".join(out), flags)
    except re.error as e:
        raise SuiteError(f"regex {pattern!r} does not compile here: {e}")


# ---------------------------------------------------------------------------
# Versions (OpenSearch ordering)
# ---------------------------------------------------------------------------

def version_key(text):
    """Sort key of a version string as OpenSearch's Version.fromString sees
    it: majors above 3 are legacy Elasticsearch versions, older than 1.0.0."""
    parts = re.split(r"[.-]", text.strip())
    if len(parts) < 3 or len(parts) > 4:
        raise SuiteError(f"malformed version [{text}]")
    major, minor, rev = (int(p) for p in parts[:3])
    build = 99
    if len(parts) == 4:
        b = parts[3]
        if b.startswith("alpha"):
            build = int(b[5:])
        elif b.lower().startswith("beta"):
            build = 25 + int(b[4:])
        elif b.lower().startswith("rc"):
            build = 50 + int(b[2:])
        else:
            raise SuiteError(f"malformed version [{text}]")
    return (0 if major > 3 else 1, major, minor, rev, build)


FIRST_VERSION = (0, 0, 0, 0, 0)
CURRENT_VERSION = version_key(TROVE_VERSION)


def parse_version_ranges(raw):
    """List of (lower, upper) keys, as SkipSection.parseVersionRanges."""
    if raw is None:
        return []
    raw = str(raw)
    if raw.strip() == "all":
        return [(FIRST_VERSION, CURRENT_VERSION)]
    ranges = []
    for part in raw.split(","):
        bounds = part.split("-")
        if len(bounds) != 2:
            raise SuiteError(f"version range malformed: {raw}")
        lo, hi = bounds[0].strip(), bounds[1].strip()
        ranges.append((version_key(lo) if lo else FIRST_VERSION,
                       version_key(hi) if hi else CURRENT_VERSION))
    return ranges


def in_ranges(ranges, v=CURRENT_VERSION):
    return any(lo <= v <= hi for lo, hi in ranges)


def skip_reason(step):
    """Why a `skip`/`requires` step skips, or None when it does not."""
    if "skip" in step:
        s = step["skip"] or {}
        feats = s.get("features", [])
        feats = [f.strip() for f in (feats.split(",") if isinstance(feats, str) else feats)]
        ranges = parse_version_ranges(s.get("version"))
        if in_ranges(ranges):
            return f"version {str(s.get('version')).strip()}: {s.get('reason', '')}".strip()
        missing = [f for f in feats if f not in SUPPORTED_FEATURES]
        if missing:
            return "unsupported runner feature " + ",".join(missing)
        return None
    if "requires" in step:
        r = step["requires"] or {}
        feats = r.get("test_runner_features", [])
        feats = [feats] if isinstance(feats, str) else feats
        missing = [f for f in feats if f not in SUPPORTED_FEATURES]
        if missing:
            return "unsupported runner feature " + ",".join(missing)
        if r.get("cluster_features"):
            return "requires cluster features " + short(r["cluster_features"])
        return None
    return None


# ---------------------------------------------------------------------------
# Suites
# ---------------------------------------------------------------------------

class Suite:
    """One YAML file: setup, teardown and tests (name, steps) in file order."""

    def __init__(self, rel, path):
        self.rel = rel  # "suite/file.yml"
        self.setup = []
        self.teardown = []
        self.tests = []
        self.error = None
        try:
            docs = load_yaml_stream(Path(path).read_text(encoding="utf-8"))
        except (yaml.YAMLError, UnicodeDecodeError) as e:
            self.error = "YAML does not parse: " + " ".join(str(e).split())
            return
        for doc in docs:
            if doc is None:
                continue
            if not isinstance(doc, dict):
                self.error = "a document is not a map of sections"
                return
            for name, steps in doc.items():
                steps = steps or []
                if not isinstance(steps, list) or not all(isinstance(s, dict) for s in steps):
                    self.error = f"section [{name}] is not a list of steps"
                    return
                if name == "setup":
                    self.setup = steps
                elif name == "teardown":
                    self.teardown = steps
                else:
                    self.tests.append((str(name), steps))


def load_spec(spec_dir):
    """API name → spec (the inner object of each <api>.json), plus built-ins."""
    specs = dict(BUILTIN_SPECS)
    for f in sorted(Path(spec_dir).glob("*.json")):
        try:
            data = json.loads(f.read_text(encoding="utf-8"))
        except ValueError as e:
            raise SystemExit(f"yamlrest: bad spec {f}: {e}")
        for name, api in data.items():
            if isinstance(api, dict) and "url" in api:
                specs[name] = api
    return specs


def read_list_file(path):
    """`suite/file.yml[ :: test name]  # reason` lines → {key: reason}."""
    entries = {}
    p = Path(path)
    if not p.exists():
        return entries
    for line in p.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        m = re.match(r"^(.*?)\s+#\s?(.*)$", line)
        key, reason = (m.group(1), m.group(2)) if m else (line, "")
        entries[key.strip()] = reason.strip()
    return entries


# ---------------------------------------------------------------------------
# Stash and object paths
# ---------------------------------------------------------------------------

EXTENDED_KEY = re.compile(r"\$\{([^}]+)\}")


def parse_path(path):
    parts, cur, escape = [], [], False
    for c in path:
        if c == "\\":
            escape = True
            continue
        if c == "." and not escape:
            if cur:
                parts.append("".join(cur))
                cur = []
            continue
        escape = False
        cur.append(c)
    if cur:
        parts.append("".join(cur))
    return parts


class Stash:
    def __init__(self):
        self.values = {}

    def clear(self):
        self.values = {}

    def contains(self, key):
        if not isinstance(key, str) or not key:
            return False
        return key.startswith("$") or bool(EXTENDED_KEY.search(key))

    def _unstash(self, key):
        v = evaluate_path(self.values, key, None)
        if v is None:
            raise SuiteError(f"stashed value not found for key [{key}]")
        return v

    def get(self, key):
        if key.startswith("$") and not key.startswith("${"):
            return self._unstash(key[1:])
        if not EXTENDED_KEY.search(key):
            raise SuiteError(f"doesn't contain any stash keys [{key}]")
        return EXTENDED_KEY.sub(lambda m: java_str(self._unstash(m.group(1))), key)

    def replace(self, obj):
        """Stash references replaced in values and keys, recursively."""
        if isinstance(obj, list):
            return [self.get(o) if self.contains(o) else self.replace(o) for o in obj]
        if isinstance(obj, dict):
            out = {}
            for k, v in obj.items():
                if self.contains(k):
                    k = java_str(self.get(k))
                out[k] = self.get(v) if self.contains(v) else self.replace(v)
            return out
        return obj


def evaluate_path(obj, path, stash):
    for key in parse_path(path):
        if stash is not None and stash.contains(key):
            key = java_str(stash.get(key))
        if isinstance(obj, dict):
            if key == "_arbitrary_key_":
                if not obj:
                    raise TestFailure(f"requested [{key}] but the map was empty")
                return next(iter(obj))
            obj = obj.get(key)
        elif isinstance(obj, list):
            try:
                obj = obj[int(key)]
            except ValueError:
                raise TestFailure(f"[{path}]: element was a list, but [{key}] was not numeric")
            except IndexError:
                raise TestFailure(f"[{path}]: element was a list with {len(obj)} elements, "
                                  f"but [{key}] was out of bounds")
        else:
            raise TestFailure(f"[{path}]: no object found for [{key}] within {type_name(obj)}")
        if obj is None:
            return None
    return obj


# ---------------------------------------------------------------------------
# HTTP and the server process
# ---------------------------------------------------------------------------

class Response:
    def __init__(self, method, status, headers, body):
        self.method = method
        self.status = status
        self.headers = headers  # list of (name, value)
        self.raw = body
        self.parsed = None
        self.has_parsed = False
        self.parse_error = None  # raised by the do step, after logging
        ctype = self.header("content-type") or ""
        mime = ctype.split(";")[0].strip().lower()
        try:
            if body and mime in ("application/json", "application/vnd.opensearch+json"):
                self.parsed = parse_json_strict(body)
                self.has_parsed = True
            elif body and mime in ("application/yaml", "application/x-yaml"):
                try:
                    self.parsed = yaml.load(body.decode("utf-8"), Loader=JacksonLikeLoader)
                except (yaml.YAMLError, UnicodeDecodeError) as e:
                    raise TestFailure("response is not valid YAML: " + " ".join(str(e).split())[:120])
                self.has_parsed = True
        except TestFailure as e:
            self.parse_error = e

    def header(self, name):
        for k, v in self.headers:
            if k.lower() == name:
                return v
        return None

    def header_all(self, name):
        return [v for k, v in self.headers if k.lower() == name]

    @property
    def text(self):
        return self.raw.decode("utf-8", "replace")

    def body(self):
        """What the Java runner stashes as $body: parsed, or the text."""
        if self.has_parsed:
            return self.parsed
        # a text answer (a _cat table) is stashed as its text, even when empty
        if self.raw or (self.header("content-type") or "").lower().startswith("text/"):
            return self.text
        return None

    def evaluate(self, path, stash):
        if not self.has_parsed:
            if path == "" and self.method == "HEAD":
                return self.status < 400
            return None
        return evaluate_path(self.parsed, path, stash)

    def summary(self):
        """`400 illegal_argument_exception: reason` or a clipped body."""
        err = self.parsed.get("error") if isinstance(self.parsed, dict) else None
        if isinstance(err, dict):
            return f"{self.status} {err.get('type')}: {err.get('reason')}"
        if err is not None:
            return f"{self.status} {short(err)}"
        t = " ".join(self.text.split())
        return f"{self.status} {t[:100]}" if t else str(self.status)


def parse_json_strict(raw):
    """JSON as Jackson reads it: duplicate keys and NaN are errors."""
    def pairs(kv):
        d = {}
        for k, v in kv:
            if k in d:
                raise ValueError(f"duplicate field [{k}]")
            d[k] = v
        return d

    def bad_constant(name):
        raise ValueError(f"non-JSON constant {name}")
    try:
        return json.loads(raw.decode("utf-8"), object_pairs_hook=pairs, parse_constant=bad_constant)
    except (ValueError, UnicodeDecodeError) as e:
        raise TestFailure(f"response is not valid JSON ({e}): {short(raw.decode('utf-8', 'replace'))}")


SANITIZER_LINE = re.compile(r"ERROR: (Address|Leak|Thread|Memory)Sanitizer|: runtime error: ")


class Server:
    """A `trove serve --port 0` child, or an external URL."""

    def __init__(self, binary=None, url=None):
        self.binary = binary
        self.url = url
        self.proc = None
        self.log = deque(maxlen=40)
        self.sanitizer = []  # sanitizer report lines seen on the server's stderr
        self.stop_notes = []
        self.pump_thread = None
        self.session = None
        self.external = url is not None

    def start(self):
        if not self.external:
            self.url = None
            try:
                self.proc = subprocess.Popen(
                    # node.attr.testattr: the attribute OpenSearch's REST test
                    # clusters are configured with (the suites read it back)
                    [self.binary, "serve", "--port", "0", "--node-attr", "testattr=test"],
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            except OSError as e:
                raise SystemExit(f"yamlrest: cannot start {self.binary}: {e}")
            found = threading.Event()
            box = {}

            def pump(stream):
                report = 0  # lines still to keep of a sanitizer report
                for raw in iter(stream.readline, b""):
                    line = raw.decode("utf-8", "replace").rstrip()
                    self.log.append(line)
                    if SANITIZER_LINE.search(line):
                        report = 25
                    if report and len(self.sanitizer) < 400:
                        self.sanitizer.append(line)
                        report -= 1
                    if "url" not in box:
                        m = re.search(r"https?://[^\s\"']+", line)
                        if m:
                            box["url"] = m.group(0).rstrip("/")
                            found.set()
                found.set()
            self.pump_thread = threading.Thread(target=pump, args=(self.proc.stderr,), daemon=True)
            self.pump_thread.start()
            found.wait(START_TIMEOUT)
            if "url" not in box:
                self.stop()
                tail = " | ".join(self.log)
                raise SystemExit(f"yamlrest: {self.binary} serve logged no URL within "
                                 f"{START_TIMEOUT:.0f}s: {tail[-300:]}")
            self.url = box["url"]
        self.session = requests.Session()
        # As the Java low-level client: no Accept, no compression.
        self.session.headers.pop("Accept-Encoding", None)
        self.session.headers.pop("Accept", None)
        self.session.headers["User-Agent"] = "trove-yamlrest"

    def alive(self):
        return self.external or (self.proc is not None and self.proc.poll() is None)

    def exit_note(self):
        if self.external or self.proc is None:
            return "connection failed"
        try:
            rc = self.proc.wait(1.0)  # a crash closes the socket just before the exit is seen
        except subprocess.TimeoutExpired:
            return "server did not answer"
        return f"trove exited with {'signal ' + str(-rc) if rc < 0 else 'status ' + str(rc)}"

    def stop(self):
        if self.session:
            self.session.close()
            self.session = None
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                rc = self.proc.wait(10)
                if rc != 0:
                    self.stop_notes.append(f"trove exited with status {rc} on SIGTERM")
            except subprocess.TimeoutExpired:
                self.stop_notes.append("trove did not exit within 10 s of SIGTERM (killed)")
                self.proc.kill()
                self.proc.wait()
        if self.proc and self.pump_thread:
            self.pump_thread.join(5)  # the rest of stderr (a leak report comes at exit)
        self.proc = None

    def restart(self):
        self.stop()
        self.start()

    def request(self, method, path, params=(), body=None, headers=None):
        query = urllib.parse.urlencode(list(params), quote_via=urllib.parse.quote, safe=",*")
        url = self.url + path + ("?" + query if query else "")
        try:
            r = self.session.request(method, url, data=body, headers=headers or {},
                                     timeout=REQUEST_TIMEOUT, allow_redirects=False)
        except requests.RequestException as e:
            raise ServerGone(f"{method} {path}: {type(e).__name__}")
        h = r.raw.headers if r.raw is not None else r.headers
        if hasattr(h, "getlist"):  # keep repeated headers (Warning) apart
            raw_headers = [(k, v) for k in h.keys() for v in h.getlist(k)]
        else:
            raw_headers = list(h.items())
        return Response(method, r.status_code, raw_headers, r.content)


# ---------------------------------------------------------------------------
# Running a test
# ---------------------------------------------------------------------------

def param_text(v):
    """parser.text() of a YAML scalar; lists join with ","."""
    if isinstance(v, list):
        return ",".join(param_text(x) for x in v)
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return java_double_str(v)
    if v is None:
        return ""
    return str(v)


def parse_bodies(body):
    """The bodies of a do section, as DoSection.parse builds them."""
    if body is None:
        return []
    if isinstance(body, dict):
        return [body]
    if isinstance(body, list):
        out = []
        for item in body:
            out.extend(parse_bodies(item))
        return out
    text = param_text(body)
    dec = json.JSONDecoder()
    out, i = [], 0
    while True:
        while i < len(text) and text[i] in " \t\r\n":
            i += 1
        if i >= len(text):
            break
        try:
            value, i = dec.raw_decode(text, i)
        except ValueError as e:
            raise SuiteError(f"body is not JSON: {e}")
        out.append(value)
    return out


def path_part(value):
    """URI path encoding of one part, with "/" escaped (as the Java client)."""
    return urllib.parse.quote(value, safe="!$&'()*+,;=:@").replace("/", "%2F")


class Runner:
    def __init__(self, specs, server, rng=None, verbose=False):
        self.specs = specs
        self.server = server
        self.rng = rng
        self.verbose = verbose
        self.stash = Stash()
        self.response = None

    # -- do -------------------------------------------------------------

    def do(self, spec_step):
        step = dict(spec_step)
        catch = step.pop("catch", None)
        catch = None if catch is None else param_text(catch)
        headers = {str(k): param_text(v) for k, v in (step.pop("headers", None) or {}).items()}
        expected_warnings = step.pop("warnings", None) or []
        allowed_warnings = step.pop("allowed_warnings", None) or []
        warnings_regex = step.pop("warnings_regex", None) or []
        allowed_regex = step.pop("allowed_warnings_regex", None) or []
        selector = step.pop("node_selector", None)
        if not step:
            raise SuiteError("do section without an API call")
        api_name, args = list(step.items())[-1]  # the Java parser keeps the last
        args = dict(args or {})
        if catch == "param":
            return  # the Java client rejects the call before sending anything
        if selector:
            for kind, value in selector.items():
                if kind == "version":
                    if not in_ranges(parse_version_ranges(param_text(value))):
                        raise TestFailure(f"node_selector version [{value}] selects no node "
                                          f"(trove is {TROVE_VERSION})")
                else:
                    raise TestFailure(f"node_selector [{kind}]: trove's node has no attributes")

        method, path, params, body, ctype, ignore = self.build_request(api_name, args, headers)
        send_headers = {}
        for k, v in headers.items():
            send_headers[k] = java_str(self.stash.get(v)) if self.stash.contains(v) else v
        if body is not None and not any(k.lower() == "content-type" for k in send_headers):
            send_headers["Content-Type"] = ctype
        if self.verbose:
            q = "&".join(f"{k}={v}" for k, v in params)
            print(f"    > {method} {path}{'?' + q if q else ''} "
                  f"{(body or b'')[:300].decode('utf-8', 'replace')}", file=sys.stderr)
        resp = self.server.request(method, path, params, body, send_headers)
        self.response = resp
        self.stash.values["body"] = resp.body()
        if self.verbose:
            print(f"    < {resp.status} {resp.text[:2000]}", file=sys.stderr)
        if resp.parse_error:
            raise resp.parse_error

        is_error = resp.status >= 300 and resp.status not in ignore \
            and not (method == "HEAD" and resp.status == 404)
        what = f"do {api_name}"
        if not is_error:
            if catch:
                label = CATCHES[catch][0] if catch in CATCHES else "4xx|5xx"
                if catch not in CATCHES and not (catch.startswith("/") and catch.endswith("/")):
                    raise SuiteError(f"catch value [{catch}] not supported")
                raise TestFailure(f"{what}: got {resp.summary()}, expected {label} "
                                  f"(catch {clip(catch, 60)})")
            self.check_warnings(resp, expected_warnings, allowed_warnings,
                                warnings_regex, allowed_regex, what)
            return
        if not catch:
            raise TestFailure(f"{what}: expected 2xx, got {resp.summary()}")
        if catch in CATCHES:
            label, ok = CATCHES[catch]
            if not ok(resp.status):
                raise TestFailure(f"{what}: got {resp.summary()}, expected {label} "
                                  f"(catch {catch})")
            return
        if len(catch) > 2 and catch.startswith("/") and catch.endswith("/"):
            if resp.status < 400:
                raise TestFailure(f"{what}: expected 4xx|5xx, got {resp.summary()}")
            error = resp.evaluate("error", self.stash)
            if error is None:
                raise TestFailure(f"{what}: {resp.status} without an \"error\" in the response")
            rx = java_regex(catch[1:-1])
            if not rx.search(java_str(error)):
                raise TestFailure(f"{what}: got {resp.summary()}, not matching "
                                  f"catch {clip(catch, 70)}")
            return
        raise SuiteError(f"catch value [{catch}] not supported")

    def check_warnings(self, resp, expected, allowed, expected_rx, allowed_rx, what):
        """Unexpected Warning headers fail; missing expected ones are not
        checked (trove sends no deprecation warnings)."""
        for header in resp.header_all("warning"):
            m = re.match(r'^\d{3} [^ ]+ "((?:\\"|[^"])*)"', header)
            msg = m.group(1).replace('\\"', '"').replace("\\\\", "\\") if m else header
            if msg.startswith("[types removal]"):
                continue
            if msg in expected or msg in allowed:
                continue
            if any(java_regex(p).search(msg) for p in list(expected_rx) + list(allowed_rx)):
                continue
            raise TestFailure(f"{what}: unexpected warning header: {header[:150]}")

    def build_request(self, api_name, args, headers):
        spec = self.specs.get(api_name)
        if spec is None:
            raise SuiteError(f"API [{api_name}] has no spec")
        raw_body = args.pop("body", None)
        ignore = set()
        if "ignore" in args:
            ig = args.pop("ignore")
            for x in (ig if isinstance(ig, list) else str(ig).split(",")):
                ignore.add(int(x))
        params = {}
        for k, v in args.items():
            if isinstance(v, str) and self.stash.contains(v):
                v = self.stash.get(v)
            params[str(k)] = java_str(v) if isinstance(v, dict) else param_text(v)
        params.setdefault("error_trace", "true")

        paths = spec["url"]["paths"]
        scored = []
        for p in paths:
            parts = set((p.get("parts") or {}).keys()) or set(re.findall(r"\{(\w+)\}", p["path"]))
            if parts <= params.keys():
                scored.append((len(parts), p, parts))
        if not scored:
            raise SuiteError(f"no path of [{api_name}] matches params {sorted(params)}")
        best = max(s[0] for s in scored)
        candidates = [s for s in scored if s[0] == best]
        _, pathspec, parts = self.rng.choice(candidates) if self.rng else candidates[0]
        path = pathspec["path"]
        for part in parts:
            path = path.replace("{" + part + "}", path_part(params.pop(part)))
        query = [(k, v) for k, v in params.items()]

        bodies = [self.stash.replace(b) if isinstance(b, (dict, list)) else b
                  for b in parse_bodies(raw_body)]
        body = None
        ctype_header = next((v for k, v in headers.items() if k.lower() == "content-type"), None)
        use_yaml = ctype_header is not None and "yaml" in ctype_header.lower()
        serialize_bulk = (spec.get("body") or {}).get("serialize") == "bulk"
        if bodies:
            if spec.get("body") is None:
                raise SuiteError(f"body is not supported by [{api_name}] api")
            if len(bodies) == 1 and not serialize_bulk:
                body = self.encode(bodies[0], use_yaml)
                ctype = "application/yaml" if use_yaml else "application/json; charset=UTF-8"
            else:
                body = b"".join(self.encode(b, False) + b"\n" for b in bodies)
                ctype = "application/x-ndjson; charset=UTF-8"
        else:
            if (spec.get("body") or {}).get("required"):
                raise SuiteError(f"body is required by [{api_name}] api")
            ctype = None
        methods = pathspec["methods"]
        method = self.rng.choice(methods) if self.rng else methods[0]
        return method, path, query, body, ctype, ignore

    @staticmethod
    def encode(value, use_yaml):
        if use_yaml:
            return yaml.safe_dump(value, default_flow_style=False, allow_unicode=True).encode()
        return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")

    # -- assertions -----------------------------------------------------

    def actual(self, field):
        if self.stash.contains(field):
            return self.stash.get(field)
        if self.response is None:
            raise SuiteError(f"assertion on [{field}] before any request")
        return self.response.evaluate(field, self.stash)

    def expected(self, value):
        if isinstance(value, dict):
            return self.stash.replace(value)
        if self.stash.contains(value):
            return self.stash.get(value)
        return value

    def assertion(self, kind, arg):
        if kind in ("is_true", "is_false"):
            field = "" if arg is None else str(arg)
            actual = self.actual(field)
            s = None if actual is None else java_str(actual)
            if kind == "is_true":
                if s is None or s == "" or s.lower() == "false" or s == "0":
                    raise TestFailure(f"is_true [{field}]: got {short(actual)}")
            elif not (s is None or s == "" or s.lower() == "false" or s == "0"):
                raise TestFailure(f"is_false [{field}]: got {short(actual)}")
            return
        if not isinstance(arg, dict) or not arg:
            raise SuiteError(f"{kind} needs a map")
        if kind == "match":
            epsilon = None
            items = list(arg.items())
            if len(items) == 2 and any(k == "epsilon" for k, _ in items):
                epsilon = float(next(v for k, v in items if k == "epsilon"))
                items = [(k, v) for k, v in items if k != "epsilon"]
            if len(items) != 1:
                raise SuiteError("match assertion must have 1 field (and optionally epsilon)")
            field, exp = items[0]
            self.match(str(field), self.expected(exp), epsilon)
            return
        for field, exp in arg.items():
            field = str(field)
            if kind == "set":
                self.stash.values[str(exp)] = self.response.evaluate(field, self.stash) \
                    if self.response else None
            elif kind == "transform_and_set":
                self.transform_and_set(field, exp)
            elif kind == "length":
                self.length(field, self.expected(exp))
            elif kind in ("gt", "gte", "lt", "lte"):
                self.compare(kind, field, self.expected(exp))
            elif kind == "contains":
                self.contains(field, self.expected(exp))
            else:
                raise SuiteError(f"unknown assertion [{kind}]")

    def match(self, field, exp, epsilon):
        actual = self.actual(field)
        if isinstance(exp, str):
            e = exp.strip()
            if len(e) > 2 and e.startswith("/") and e.endswith("/"):
                if not isinstance(actual, str):
                    raise TestFailure(f"match [{field}]: expected a string matching {short(e)}, "
                                      f"got {type_name(actual)} {short(actual)}")
                if not java_regex(e[1:-1], comments=True).search(actual):
                    raise TestFailure(f"match [{field}]: {short(actual)} does not match {short(e)}")
                return
        if exp is None:
            if actual is not None:
                raise TestFailure(f"match [{field}]: expected null, got {short(actual)}")
            return
        if actual is None:
            raise TestFailure(f"match [{field}]: expected {short(exp)}, got nothing (field missing)")
        nums = (int, float)
        if isinstance(actual, nums) and isinstance(exp, nums) and \
                not isinstance(actual, bool) and not isinstance(exp, bool):
            if epsilon is not None:
                ok = abs(float(actual) - float(exp)) <= epsilon
            elif type(actual) is not type(exp):
                ok = float(actual) == float(exp)
            else:
                ok = actual == exp
            if not ok:
                raise TestFailure(f"match [{field}]: expected {short(exp)}, got {short(actual)}")
            return
        if not java_equals(actual, exp):
            raise TestFailure("match " + (first_difference(field, actual, exp) or f"[{field}]"))

    def length(self, field, exp):
        try:
            n = int(exp)
        except (TypeError, ValueError):
            raise SuiteError(f"length [{field}]: {short(exp)} is not a number")
        actual = self.actual(field)
        if isinstance(actual, (str, list, dict)):
            if len(actual) != n:
                raise TestFailure(f"length [{field}]: expected {n}, got {len(actual)}: {short(actual)}")
        elif actual is None:
            raise TestFailure(f"length [{field}]: expected {n}, got nothing (field missing)")
        else:
            raise TestFailure(f"length [{field}]: value has no length: {short(actual)}")

    def compare(self, kind, field, exp):
        actual = self.actual(field)
        nums = (int, float)
        if isinstance(actual, nums) and isinstance(exp, nums) and not isinstance(actual, bool):
            a, b = actual, exp
        elif isinstance(actual, str) and isinstance(exp, str):
            a, b = actual, exp
        else:
            raise TestFailure(f"{kind} [{field}]: cannot compare {type_name(actual)} "
                              f"{short(actual)} with {short(exp)}")
        ok = {"gt": a > b, "gte": a >= b, "lt": a < b, "lte": a <= b}[kind]
        if not ok:
            sym = {"gt": ">", "gte": ">=", "lt": "<", "lte": "<="}[kind]
            raise TestFailure(f"{kind} [{field}]: expected {sym} {short(exp)}, got {short(actual)}")

    def contains(self, field, exp):
        actual = self.actual(field)
        if not (isinstance(exp, dict) and isinstance(actual, list)):
            raise TestFailure(f"contains [{field}]: only a map in a list of maps is supported, "
                              f"got {type_name(actual)}")
        for each in actual:
            if isinstance(each, dict) and all(k in each and java_equals(each[k], v)
                                              for k, v in exp.items()):
                return
        raise TestFailure(f"contains [{field}]: no element matches {short(exp)}: {short(actual)}")

    def transform_and_set(self, key, exp):
        m = re.match(r"^#base64EncodeCredentials\(([^,]+),([^)]+)\)$", str(exp).strip())
        if not m:
            raise SuiteError(f"transform_and_set [{exp}] not supported")
        a = self.response.evaluate(m.group(1).strip(), self.stash)
        b = self.response.evaluate(m.group(2).strip(), self.stash)
        self.stash.values[key] = base64.b64encode(
            f"{java_str(a)}:{java_str(b)}".encode()).decode()

    # -- sections -------------------------------------------------------

    def run_steps(self, steps):
        for i, step in enumerate(steps):
            if not isinstance(step, dict) or len(step) != 1:
                raise SuiteError(f"step {i + 1} is not a single-key map")
            kind, arg = next(iter(step.items()))
            if kind in ("skip", "requires"):
                continue  # evaluated before the test runs
            if kind == "do":
                if not isinstance(arg, dict):
                    raise SuiteError("do needs a map")
                self.do(arg)
            else:
                self.assertion(kind, arg)

    def reset(self):
        self.stash.clear()
        self.response = None


def first_skip(steps):
    if steps and isinstance(steps[0], dict) and ("skip" in steps[0] or "requires" in steps[0]):
        return skip_reason(steps[0])
    return None


WIPE_NOTES = {}  # problem with the Java-style wipe → number of times seen


def wipe(server):
    """Cleans the node as OpenSearchRestTestCase.wipeCluster does, all through
    the REST API. When trove rejects the Java runner's exact index wipe, the
    problem is noted once for the run summary and plain `DELETE /*` then
    `DELETE /_all` are tried instead, so one unsupported parameter does not
    leak state into every later test. Returns a problem that must fail the
    test (indices left behind), or None."""
    s = server
    s.request("DELETE", "/_data_stream/*")
    r = s.request("DELETE", "/*", [("expand_wildcards", "open,closed,hidden")])
    acked = isinstance(r.parsed, dict) and r.parsed.get("acknowledged") is True
    if not (r.status == 404 or (r.status < 300 and acked)):
        note = f"DELETE /*?expand_wildcards=open,closed,hidden answered {r.summary()}"
        WIPE_NOTES[one_line(note, 200)] = WIPE_NOTES.get(one_line(note, 200), 0) + 1
        s.request("DELETE", "/*")
        s.request("DELETE", "/_all")
    for p in ("/_template/*", "/_index_template/*", "/_component_template/*"):
        s.request("DELETE", p)
    r = s.request("GET", "/_cluster/settings")
    if r.status == 200 and isinstance(r.parsed, dict):
        clear = {}
        for kind, settings in r.parsed.items():
            if isinstance(settings, dict) and settings:
                clear[kind] = {k + ".*": None for k in settings}
        if clear:
            s.request("PUT", "/_cluster/settings", body=json.dumps(clear).encode(),
                      headers={"Content-Type": "application/json"})
    # Verify: nothing may survive into the next test.
    r = s.request("GET", "/_all", [("expand_wildcards", "all")])
    if r.status >= 300:
        r = s.request("GET", "/_all")
    if r.status < 300 and isinstance(r.parsed, dict) and r.parsed:
        left = sorted(r.parsed)
        for name in left:
            s.request("DELETE", "/" + path_part(name))
        return f"wipe left indices {left[:5]} (deleted one by one)"
    return None


def one_line(text, limit=220):
    t = " ".join(str(text).split())
    return t if len(t) <= limit else t[:limit - 3] + "..."


def run_test(runner, server, suite, name, steps):
    """Runs one test with its file's setup and teardown, then wipes.
    Returns (status, reason)."""
    runner.reset()
    failure = None
    try:
        try:
            runner.run_steps(suite.setup)
            runner.run_steps(steps)
        except (TestFailure, SuiteError) as e:
            failure = e
        finally:
            try:
                runner.run_steps(suite.teardown)
            except (TestFailure, SuiteError) as e:
                if failure is None:
                    failure = TestFailure(f"teardown: {e}")
        try:
            problem = wipe(server)
        except TestFailure as e:
            problem = f"wipe: {e}"
        if problem and failure is None:
            failure = TestFailure(problem)
    except ServerGone as e:
        note = server.exit_note()
        tail = [l for l in server.log if l.strip()][-1:] if not server.alive() else []
        print(f"yamlrest: {suite.rel} :: {name}: {note}; server log tail:\n  "
              + "\n  ".join(list(server.log)[-30:]), file=sys.stderr)
        server.restart()
        extra = f"; last log: {tail[0][:100]}" if tail else ""
        return "FAIL", one_line(f"{note} ({e}){extra}")
    if failure is None:
        return "PASS", ""
    prefix = "runner: " if isinstance(failure, SuiteError) else ""
    return "FAIL", one_line(prefix + str(failure))


# ---------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------

def collect(test_dir):
    suites = []
    for path in sorted(Path(test_dir).glob("*/*.y*ml")):
        rel = f"{path.parent.name}/{path.name}"
        suites.append(Suite(rel, path))
    return suites


EXPECTED_HEADER = """\
# YAML REST tests that fail against trove today (tests/compat/yamlrest.py).
# Format: suite/file.yml :: test name  # why (what trove answers differently or lacks)
# The runner fails when a test not listed here fails, and when a listed test
# passes (remove its line). Regenerate with: tests/compat/yamlrest.py --update-expected
"""


def main(argv=None):
    ap = argparse.ArgumentParser(description="Run OpenSearch's YAML REST tests against trove.")
    ap.add_argument("--compat", default=None,
                    help="directory holding opensearch-rest-yaml/ and opensearch-rest-api-spec/ "
                         "(default: ../shared/compat relative to the repository root)")
    ap.add_argument("--trove", default=None,
                    help="trove binary (default: $TROVE_BIN, else build/trove)")
    ap.add_argument("--url", default=None, help="use a running server instead of starting one")
    ap.add_argument("--expected", default=str(Path(__file__).resolve().parent / "expected-failures.txt"))
    ap.add_argument("--update-expected", action="store_true",
                    help="rewrite the expected-failures file with this run's failures")
    ap.add_argument("--seed", type=int, default=None,
                    help="pick paths and methods at random with this seed (Java runner style)")
    ap.add_argument("-v", "--verbose", action="store_true", help="log requests and responses")
    ap.add_argument("--strict", action="store_true",
                    help="also fail when expected-failures.txt lists tests that now pass or no longer exist")
    ap.add_argument("filters", nargs="*", help="run only tests whose id contains one of these")
    args = ap.parse_args(argv)

    compat = Path(args.compat) if args.compat else (REPO_ROOT / ".." / "shared" / "compat")
    test_dir = compat / "opensearch-rest-yaml"
    spec_dir = compat / "opensearch-rest-api-spec"
    if not test_dir.is_dir() or not spec_dir.is_dir():
        print(f"yamlrest: no tests under {compat} (need opensearch-rest-yaml/ and "
              f"opensearch-rest-api-spec/)" + ("" if args.compat else ": skipped"), file=sys.stderr)
        # the default place missing (a clone without ../shared beside it) is
        # a skip (CTest's SKIP_RETURN_CODE); a directory given is an error
        return 2 if args.compat else 77
    specs = load_spec(spec_dir)
    skips = read_list_file(test_dir / "SKIP.txt")
    expected = read_list_file(args.expected)
    suites = collect(test_dir)

    binary = args.trove or os.environ.get("TROVE_BIN") or str(REPO_ROOT / "build" / "trove")
    server = Server(binary=binary, url=args.url.rstrip("/") if args.url else None)
    runner = Runner(specs, server, random.Random(args.seed) if args.seed is not None else None,
                    args.verbose)
    server_started = False

    results = []  # (key, status, reason)
    t0 = time.monotonic()
    try:
        for suite in suites:
            tests = suite.tests or ([("(file)", [])] if suite.error else [])
            for name, steps in tests:
                key = f"{suite.rel} :: {name}"
                if args.filters and not any(f in key for f in args.filters):
                    continue
                listed = skips.get(key, skips.get(suite.rel))
                if listed is not None:
                    status, why = "SKIP", listed or "listed in SKIP.txt"
                elif suite.error:
                    status, why = "FAIL", "runner: " + suite.error
                else:
                    try:
                        why = (first_skip(suite.setup) or first_skip(suite.teardown)
                               or first_skip(steps))
                        status = "SKIP" if why else None
                    except SuiteError as e:
                        status, why = "FAIL", "runner: " + str(e)
                    if status is None:
                        if not server_started:
                            server.start()
                            server_started = True
                            wipe(server)
                        status, why = run_test(runner, server, suite, name, steps)
                results.append((key, status, why))
                line = f"{status} {key}" + (f"  # {why}" if why else "")
                print(line, flush=True)
    except KeyboardInterrupt:
        print("yamlrest: interrupted", file=sys.stderr)
        server.stop()
        return 2
    finally:
        server.stop()

    passed = sum(1 for _, s, _ in results if s == "PASS")
    failed = [(k, w) for k, s, w in results if s == "FAIL"]
    skipped = sum(1 for _, s, _ in results if s == "SKIP")
    print(f"{passed} passed, {len(failed)} failed, {skipped} skipped "
          f"({time.monotonic() - t0:.1f}s)")

    if server.sanitizer:
        print(f"\nthe server logged sanitizer reports ({len(server.sanitizer)} lines kept):")
        for line in server.sanitizer:
            print("  " + line)
    for note in server.stop_notes:
        print("note: " + note)
    for note, n in WIPE_NOTES.items():
        print(f"note: the Java runner's index wipe failed {n} time(s), fell back to "
              f"DELETE /* and DELETE /_all: {note}")

    if args.update_expected:
        # A test still failing keeps its line's reason (reasons are often
        # rewritten by hand to say what trove lacks); new failures get the
        # runner's reason. With filters, lines of tests not run are kept.
        lines = [(k, expected.get(k) or w) for k, w in failed]
        if args.filters:
            ran = {k for k, _, _ in results}
            keep = dict((k, v) for k, v in expected.items() if k not in ran)
            keep.update(dict(lines))
            order = {k: i for i, (k, _, _) in enumerate(results)}
            lines = sorted(keep.items(), key=lambda kv: (order.get(kv[0], -1), kv[0]))
        with open(args.expected, "w", encoding="utf-8") as f:
            f.write(EXPECTED_HEADER)
            for k, w in lines:
                f.write(f"{k}  # {w}\n")
        print(f"yamlrest: wrote {len(lines)} entries to {args.expected}")
        return 0

    unexpected = [(k, w) for k, w in failed if k not in expected]
    ran = {k: s for k, s, _ in results}
    now_pass = [k for k in expected if ran.get(k) == "PASS"]
    gone = [k for k in expected if k not in ran] if not args.filters else []
    if unexpected:
        print(f"\n{len(unexpected)} unexpected failure(s) (fix trove, or add to {args.expected}):")
        for k, w in unexpected:
            print(f"  {k}  # {w}")
    if now_pass:
        print(f"\n{len(now_pass)} test(s) listed in {args.expected} now pass; remove these lines:")
        for k in now_pass:
            print(f"  {k}")
    if gone:
        print(f"\n{len(gone)} line(s) of {args.expected} name no test that ran; remove them:")
        for k in gone:
            print(f"  {k}")
    # Stale entries (listed tests that now pass or no longer exist) fail the run
    # only with --strict: the list is bookkeeping, and a fix landing without its
    # line removed must not hide real regressions behind a red run. Unexpected
    # failures and sanitizer reports always fail.
    stale = bool(now_pass or gone)
    return 1 if unexpected or server.sanitizer or (stale and args.strict) else 0


if __name__ == "__main__":
    sys.exit(main())
