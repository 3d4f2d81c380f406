"""Shared fixtures of the Python package's tests.

The tests compare the package with the `tracesql` CLI built from the same
tree (TRACESQL_BIN, else target/debug/tracesql) and read the shared
conformance traces (TRACESQL_CONFORMANCE, else ../shared/conformance beside
the repository); without them those tests skip, except under CI=true.
"""

import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "fixtures"


def _conformance():
    given = os.environ.get("TRACESQL_CONFORMANCE")
    return Path(given) if given else REPO.parent / "shared" / "conformance"


CONFORMANCE = _conformance()


def shared(relative):
    """A path under the shared conformance data; skips (fails under CI) without it."""
    path = CONFORMANCE / relative
    if not path.exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{path} is missing (CI needs ../shared/conformance)")
        pytest.skip(f"{path} is missing")
    return path


@pytest.fixture(scope="session")
def cli():
    """Runs the tracesql CLI; returns its stdout (fails the test on a non-zero exit)."""
    binary = os.environ.get("TRACESQL_BIN") or str(REPO / "target" / "debug" / "tracesql")
    if not Path(binary).exists():
        pytest.fail(f"the CLI is not built at {binary} (cargo build, or set TRACESQL_BIN)")

    def run(*args):
        done = subprocess.run([binary, *map(str, args)], capture_output=True, text=True)
        assert done.returncode == 0, f"tracesql {' '.join(map(str, args))}: {done.stderr}"
        return done.stdout

    return run


@pytest.fixture(scope="session")
def bert_h100():
    return shared("traces/h100/gaunernst_bert-small-uncased__1016001.json.gz")


@pytest.fixture(scope="session")
def bert_mi300():
    return shared("traces/mi300/gaunernst_bert-small-uncased__1016001.json.gz")


@pytest.fixture(scope="session")
def owlv2():
    return shared("traces/h100/google_owlv2-large-patch14-ensemble__1016001.json.gz")
