"""Run keys: stable, and moved by every input that decides a run's bytes."""

import json
import shutil
from pathlib import Path

import pytest

from experiments.common.files import tree_digest
from experiments.planning.expansion import Run
from experiments.planning.runkey import parsers_digest, run_key, tcl_digest
from experiments.simulate import toolchain as toolchain_module
from experiments.simulate.toolchain import Toolchain, key_of

PARAMS = {"seed": 1, "duration": 2.0, "flows": [{"fid": 1}]}


def test_key_is_stable_and_ignores_dict_order():
    assert run_key(PARAMS, "t", "n") == run_key({"flows": [{"fid": 1}], "duration": 2.0, "seed": 1}, "t", "n")
    assert len(run_key(PARAMS, "t", "n")) == 20


def test_key_moves_with_each_input():
    base = run_key(PARAMS, "t", "n")
    assert run_key({**PARAMS, "seed": 2}, "t", "n") != base
    assert run_key({**PARAMS, "duration": 2.5}, "t", "n") != base
    assert run_key(PARAMS, "t2", "n") != base
    assert run_key(PARAMS, "t", "n2") != base


def test_tcl_digest_covers_content_and_names(tmp_path):
    (tmp_path / "lib").mkdir()
    (tmp_path / "driver.tcl").write_text("puts a\n")
    (tmp_path / "lib" / "x.tcl").write_text("proc x {} {}\n")
    first = tcl_digest(tmp_path)
    assert tcl_digest(tmp_path) == first
    (tmp_path / "lib" / "x.tcl").write_text("proc x {} {return}\n")
    second = tcl_digest(tmp_path)
    assert second != first
    (tmp_path / "lib" / "x.tcl").rename(tmp_path / "lib" / "y.tcl")
    assert tcl_digest(tmp_path) != second


# --- through the Toolchain, as every run is keyed (experiments.simulate.key_of) ---

REPO = Path(__file__).resolve().parents[2]
RUN = Run("p", "e", {"queue": "RED"}, 1, PARAMS)


def toolchain(root: Path, ns_sha256: str = "ab" * 32, parsed: bool = True) -> Toolchain:
    """A copy of the repository's tcl/ under root and a manifest naming `ns_sha256`."""
    tcl = root / "tcl"
    if not tcl.exists():
        shutil.copytree(REPO / "tcl", tcl)
    manifest = root / f"manifest-{ns_sha256[:8]}.json"
    manifest.write_text(json.dumps({"binary": {"sha256": ns_sha256}}))
    return Toolchain(ns=root / "ns", manifest=manifest, driver=tcl / "driver.tcl", parsed=parsed)


def test_key_stays_when_nothing_changes(tmp_path):
    tools = toolchain(tmp_path)
    first = key_of(RUN, tools)
    assert key_of(RUN, toolchain(tmp_path)) == first
    assert key_of(Run("p", "e", {"queue": "RED"}, 1, json.loads(json.dumps(PARAMS))), tools) == first
    assert tools.tcl_sha256 == tcl_digest(REPO / "tcl"), "the copy hashes like the original"


def test_key_changes_when_a_tcl_file_changes(tmp_path):
    tools = toolchain(tmp_path)
    before = key_of(RUN, tools)
    lib = tmp_path / "tcl" / "lib" / "queues.tcl"
    lib.write_text(lib.read_text() + "\n# one comment more\n")
    assert key_of(RUN, tools) != before
    (tmp_path / "tcl" / "lib" / "new.tcl").write_text("proc new {} {}\n")  # a file added anywhere under tcl/
    lib.write_text(lib.read_text().removesuffix("\n# one comment more\n"))
    assert key_of(RUN, tools) != before
    (tmp_path / "tcl" / "lib" / "new.tcl").unlink()
    assert key_of(RUN, tools) == before, "back to the same sources, back to the same key"


def test_key_changes_with_the_binary(tmp_path):
    assert key_of(RUN, toolchain(tmp_path, "ab" * 32)) != key_of(RUN, toolchain(tmp_path, "cd" * 32))


def test_key_changes_with_the_parsers(tmp_path, monkeypatch):
    tools = toolchain(tmp_path)
    before = key_of(RUN, tools)
    assert before == run_key(PARAMS, tools.tcl_sha256, "ab" * 32, parsers_digest())
    monkeypatch.setattr(toolchain_module, "parsers_digest", lambda: "ef" * 32)
    assert key_of(RUN, tools) != before


def test_parsers_digest_covers_their_sources(tmp_path, monkeypatch):
    import parsers

    copy = tmp_path / "parsers"
    shutil.copytree(Path(parsers.__file__).parent, copy, ignore=shutil.ignore_patterns("__pycache__"))
    assert tree_digest(copy, "*.py") == parsers_digest()
    (copy / "tsv.py").write_text((copy / "tsv.py").read_text() + "\n")
    assert tree_digest(copy, "*.py") != parsers_digest()


def test_key_changes_with_the_parse_setting(tmp_path):
    parsed, unparsed = toolchain(tmp_path), toolchain(tmp_path, parsed=False)
    assert unparsed.code_sha256 == f"{unparsed.tcl_sha256}:unparsed"
    assert key_of(RUN, parsed) != key_of(RUN, unparsed)


GOLDEN_PARAMS = {"seed": 1, "duration": 2.0, "flows": [{"fid": 1, "kind": "ftp"}], "labels": {"queue": "RED"}}


def test_golden_key():
    """The key's recipe (canonical JSON of params and digests, sha256, 20 hex digits) must not drift: a change
    here silently orphans every run directory ever made. If the recipe changes on purpose, update the literal."""
    assert run_key(GOLDEN_PARAMS, "a" * 64, "b" * 64, "c" * 64) == "277f78a9af8e232568c6"


@pytest.mark.parametrize("params", [{**GOLDEN_PARAMS, "duration": 2}, {**GOLDEN_PARAMS, "seed": 2}])
def test_golden_key_moves_with_any_difference(params):
    assert run_key(params, "a" * 64, "b" * 64, "c" * 64) != "277f78a9af8e232568c6"
