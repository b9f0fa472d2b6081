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


def _seeds(config):
    root = str(config.rootpath) if hasattr(config, "rootpath") else str(config.rootdir)
    seeds = []
    for entry in config.getini("trove_seed"):
        for part in entry.split():
            seeds.append(part if os.path.isabs(part) else os.path.join(root, part))
    return seeds


@pytest.fixture(scope="session")
def trove_server(pytestconfig):
    binary = pytestconfig.getini("trove_bin") or None
    with TroveServer.start(seed=_seeds(pytestconfig), binary=binary) as server:
        yield server


@pytest.fixture
def trove_clone(trove_server):
    with trove_server.clone() as url:
        yield url
