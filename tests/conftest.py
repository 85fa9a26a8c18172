"""Fixtures shared by the test suite: the binaries under test and the build module."""

from __future__ import annotations

import os
import shutil
import subprocess
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


# --- pytest-xdist (`make test` runs two workers, --dist loadgroup) -------------------------------------------
# A group runs on one worker, one test after another. By default a test file is one group, so that its module-scoped
# fixtures (an ns run, a small sweep) are built once. A file that sets SPREAD_OVER_WORKERS = True has tests
# independent of each other (each in its own scratch copy), spread one by one. Two groups never run side by side:
SERIAL_GROUPS = {
    # Snakemake in this checkout (results and logs in tmp_path, the stamp and .snakemake/ shared): one at a time.
    "snakemake-in-checkout": (
        "tests/workflow/test_bad_input_snakemake.py",
        "tests/workflow/test_interruption.py",
        "tests/workflow/test_rerun_triggers.py",
        "tests/workflow/test_sensitivity.py",
        "tests/workflow/test_unshipped_sweep.py",
    ),
}


# The longest groups start first (the scheduler hands groups out in collection order): one of them begun last would
# keep its worker busy minutes after the other ran out of work; the many short tests fill in around them.
LONGEST_GROUPS = ("tests/ns2/test_validation_suites.py", "snakemake-in-checkout")


def pytest_collection_modifyitems(config, items):
    group_of_file = {path: group for group, paths in SERIAL_GROUPS.items() for path in paths}
    for item in items:
        if item.get_closest_marker("xdist_group") or getattr(item.module, "SPREAD_OVER_WORKERS", False):
            continue
        path = Path(item.path).relative_to(REPO).as_posix()
        item.add_marker(pytest.mark.xdist_group(group_of_file.get(path, path)))

    def rank(item) -> int:
        marker = item.get_closest_marker("xdist_group")
        group = marker.args[0] if marker and marker.args else None
        return LONGEST_GROUPS.index(group) if group in LONGEST_GROUPS else len(LONGEST_GROUPS)

    items.sort(key=rank)  # stable: each group's tests, and the rest, keep their order


# --- the validation suites' closing table -------------------------------------------------------------------
# Each suite test records its counts in its report's user_properties, which pytest-xdist carries from the worker
# to the process that prints the summary.
SUITE_PROPERTY = "ns2_validation_suite"
_suite_rows: list[tuple] = []


@pytest.fixture
def record_suite(request):
    """record_suite(ours, ref): add one suite's counts (ours and Debian's ns) to the closing table."""

    def record(ours, ref) -> None:
        row = (ours.suite, len(ours.passed), ours.total, len(ref.passed), ref.total)
        request.node.user_properties.append((SUITE_PROPERTY, row))

    return record


def pytest_runtest_logreport(report):
    if report.when == "call":
        _suite_rows.extend(value for name, value in report.user_properties if name == SUITE_PROPERTY)


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if not _suite_rows:
        return
    terminalreporter.section("ns-2 validation suites (passed / tests)")
    for suite, ours_passed, ours_total, ref_passed, ref_total in _suite_rows:
        ours_count = f"{ours_passed:3d}/{ours_total:<3d}"
        terminalreporter.write_line(f"{suite:30s} ours {ours_count}  Debian's ns {ref_passed:3d}/{ref_total}")


@pytest.fixture
def tmpfs(tmp_path):
    """`tmpfs("4m")`: a tmpfs of that size mounted under tmp_path, unmounted after the test (a full disk made on
    purpose). Mounting needs root, which CI has: skipped otherwise."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root (CI runs as root)")
    mounts: list[Path] = []

    def mount(size: str) -> Path:
        path = tmp_path / f"tmpfs{len(mounts)}"
        path.mkdir()
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)], check=True)
        mounts.append(path)
        return path

    yield mount
    for path in mounts:
        subprocess.run(["umount", "--lazy", str(path)], check=True)
