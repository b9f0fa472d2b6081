"""pytest plugin: a session-wide trove server and a fresh clone per test.

Load it with ``-p trove_fixture.pytest_plugin`` or install the package (the
``pytest11`` entry point registers it).  Configuration (pytest.ini,
pyproject.toml [tool.pytest.ini_options], setup.cfg or tox.ini):

    trove_seed = tests/seed/items      # one or more paths, relative to rootdir
    trove_bin  = /path/to/trove        # else $TROVE_BIN, else trove on PATH

Fixtures:
    trove_server  (session)  a started TroveServer (.url, .pid, .indices, ...)
    trove_clone   (function) the URL of a clone of it, deleted after the test
"""

import os

import pytest

from . import TroveServer


def pytest_addoption(parser):
    parser.addini("trove_seed", "seed paths (directories or .ndjson files) for trove_server, "
                  "relative to rootdir", type="linelist", default=[])
    parser.addini("trove_bin", "path of the trove binary (default: $TROVE_BIN, then PATH)",
                  default="")


def _root(config):
    return str(config.rootpath) if hasattr(config, "rootpath") else str(config.rootdir)


def _seeds(config):
    root = _root(config)
    seeds = []
    for entry in config.getini("trove_seed"):
        entry = entry.strip()
        if entry:
            seeds.append(os.path.join(root, os.path.expanduser(entry)))
    return seeds


def _binary(config):
    value = config.getini("trove_bin").strip()
    if not value:
        return None
    value = os.path.expanduser(value)
    if os.sep in value:  # a path, relative to rootdir; a bare name is looked up on PATH
        value = os.path.join(_root(config), value)
    return value


@pytest.fixture(scope="session")
def trove_server(pytestconfig):
    server = TroveServer.start(seed=_seeds(pytestconfig), binary=_binary(pytestconfig))
    try:
        yield server
    finally:
        status = server.close()
    # A server that crashed or reported an error at exit (a sanitizer build,
    # say) fails the session's teardown rather than passing unnoticed.
    if status != 0:
        raise RuntimeError("trove exited with status %s\n%s" % (status, server.stderr))


@pytest.fixture
def trove_clone(trove_server):
    with trove_server.clone() as url:
        yield url
