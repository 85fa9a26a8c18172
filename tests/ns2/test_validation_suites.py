"""ns-2's own validation suites on our binary, side by side with Debian's packaged ns.

The required suites must pass outright; every other suite of the tree must pass at
least the tests that pass on Debian's ns (some fail there too, e.g. wireless ones
whose reference outputs predate later changes).
"""

from __future__ import annotations

import ns2_build
import pytest
from suites import REQUIRED_SUITES, list_suites, prepare_tree, reference_cache, run_side_by_side


@pytest.fixture(scope="session")
def trees(tmp_path_factory, tarball, ns_binary, debian_ns):
    """label -> (tcl/test of a private tree copy, binary); one copy per binary."""
    root = tmp_path_factory.mktemp("validation")
    return {
        "ours": (prepare_tree(tarball, root / "ours"), ns_binary),
        "reference": (prepare_tree(tarball, root / "reference"), debian_ns),
    }


@pytest.fixture(scope="session")
def caches(tarball, debian_ns):
    """Debian's results kept by key (suites.reference_cache): each suite runs on Debian's ns once per key."""
    return {"reference": reference_cache(debian_ns, tarball, ns2_build.cache_root())}


def _run(suite, trees, caches, tmp_path_factory, record_suite):
    res = run_side_by_side(suite, trees, tmp_path_factory.mktemp(f"logs-{suite}"), caches)
    ours, ref = res["ours"], res["reference"]
    record_suite(ours, ref)
    return ours, ref


@pytest.mark.parametrize("suite", REQUIRED_SUITES)
def test_required_suite_passes(suite, trees, caches, tmp_path_factory, record_suite):
    ours, ref = _run(suite, trees, caches, tmp_path_factory, record_suite)
    assert ours.total > 0, f"test-all-{suite} ran no test: {ours.command}"
    failing = {t: o for t, o in ours.outcomes.items() if o != "pass"}
    assert not failing, f"test-all-{suite} on our ns: {failing} (rerun: {ours.command})"
    assert ours.exit_code == 0
    assert ours.passed >= ref.passed


def test_no_suite_regresses_against_debian(trees, caches, tmp_path_factory, record_suite):
    others = [s for s in list_suites(trees["ours"][0]) if s not in REQUIRED_SUITES]
    assert len(others) > 50, f"expected the tree's ~100 suites, found {len(others)}"
    regressions = {}
    for suite in others:
        ours, ref = _run(suite, trees, caches, tmp_path_factory, record_suite)
        lost = ref.passed - ours.passed
        if lost:
            regressions[suite] = sorted(lost)
    assert not regressions, f"tests that pass on Debian's ns but not on ours: {regressions}"
