"""Fixtures shared by the test suite: the binaries under test and the build module."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
# The repository root first: pytest puts tests/ on sys.path, where tests/parsers/ and
# tests/figures/ would otherwise shadow the packages parsers and figures.
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "ns2-patches"))

import ns2_build  # noqa: E402


@pytest.fixture(scope="session")
def ns_binary() -> Path:
    """Our patched ns, as installed by `make ns2` (which `make test` runs first).

    NS2REPRO_NS_BINARY points the ns-2 tests at another build, e.g. a deliberately broken
    one, to see them fail (docs/VALIDATION.md).
    """
    path = Path(os.environ.get("NS2REPRO_NS_BINARY", REPO / "build" / "ns2" / "ns"))
    if not path.is_file():
        pytest.fail(f"{path} is missing: build it with `make ns2` (or run the tests with `make test`)")
    return path


@pytest.fixture(scope="session")
def debian_ns() -> Path:
    """Debian's packaged ns (package ns2), the reference our binary is compared with."""
    found = shutil.which("ns", path="/usr/bin")
    if found is None:
        pytest.fail("Debian's /usr/bin/ns is missing: `make setup` installs the ns2 package")
    return Path(found)


@pytest.fixture(scope="session")
def tarball() -> Path:
    return ns2_build.ensure_tarball()


SUITE_ROWS = pytest.StashKey[list]()


@pytest.fixture(scope="session")
def suite_rows(pytestconfig) -> list:
    """Validation-suite results collected for the closing summary."""
    return pytestconfig.stash.setdefault(SUITE_ROWS, [])


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    rows = config.stash.get(SUITE_ROWS, [])
    if not rows:
        return
    terminalreporter.section("ns-2 validation suites (passed / tests)")
    for ours, ref in rows:
        ours_count = f"{len(ours.passed):3d}/{ours.total:<3d}"
        terminalreporter.write_line(f"{ours.suite:30s} ours {ours_count}  Debian's ns {len(ref.passed):3d}/{ref.total}")
