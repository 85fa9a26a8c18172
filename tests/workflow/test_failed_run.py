"""A failed run leaves no partial output, keeps its stderr, names the command that reruns
it, and does not stop the other runs of its batch."""

from __future__ import annotations

import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from experiments.config.load import load
from experiments.planning.expansion import Run, expand
from experiments.simulate.batch import batch_record, run_batch
from experiments.simulate.execute import execute
from experiments.simulate.toolchain import Toolchain, key_of
from experiments.store import layout as layout_mod
from experiments.store.records import failed_entries

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def tools(ns_binary):
    return Toolchain(ns=ns_binary, manifest=ns_binary.parent / "manifest.json", driver=REPO / "tcl" / "driver.tcl")


def two_runs():
    doc = load(REPO / "tests" / "configs" / "minimal.yaml")
    exp = doc["experiments"]["tiny"]
    exp["matrix"]["product"] = {}
    good = expand(doc)[0]
    bad_params = {**good.params, "core_queue": {"class": "Queue/RED", "knobs": {"thresh": 5}}}  # not a RED knob
    bad = Run(good.paper, good.experiment, {"case": "bad"}, good.seed, bad_params)
    return good, bad


def test_failed_run(tools, tmp_path):
    good, bad = two_runs()
    lines = []
    outcomes = run_batch([bad, good], tmp_path, tools, report=lines.append)
    assert [o.status for o in outcomes] == ["failed", "ran"]
    failed = outcomes[0]
    runs_dir = layout_mod.runs_dir(tmp_path)
    assert not (runs_dir / failed.key).exists(), "no partial run directory"
    assert failed.directory == runs_dir / f"{failed.key}.failed"
    assert "thresh" in (failed.directory / "stderr.txt").read_text()
    rerun = (failed.directory / "rerun.sh").read_text().splitlines()[-1]
    assert rerun in failed.message and rerun.startswith(str(tools.ns))
    again = subprocess.run(rerun, shell=True, capture_output=True, text=True)  # the command reproduces the error
    assert again.returncode == 3 and "thresh" in again.stderr
    assert (outcomes[1].directory / "params.json").is_file()
    record = batch_record(outcomes, tmp_path)  # the batch job's record lists it, with its message and command
    assert [e["status"] for e in record["runs"]] == ["failed", "ran"]
    # each run's directory named relative to the results folder, never as an absolute path (issue 51)
    assert [e["directory"] for e in record["runs"]] == [f"runs/{failed.key}.failed", f"runs/{outcomes[1].key}"]
    assert failed_entries(record)[0]["rerun"] == rerun and "thresh" in record["runs"][0]["message"]
    # a rerun of the batch reuses the good run and retries the failed one
    second = run_batch([bad, good], tmp_path, tools, report=lines.append)
    assert [o.status for o in second] == ["failed", "cached"]
    assert not list(runs_dir.glob(".*.tmp-*")), "no temporary directory left behind"


# A stand-in for ns (`ns driver.tcl <run dir>`): fails while <state>/fail exists, else writes a run's raw outputs.
FAKE_NS = """#!/bin/sh
if [ -e "{state}/fail" ]; then echo "ns2-repro: core_queue: no knob thresh" >&2; exit 3; fi
echo '{{"links": []}}' > "$2/meta.json"
printf 'time\\tlink\\n' > "$2/queue_monitor.tsv"
echo '+ 0.1 2 0 tcp 1040 ------- 1 2.0 3.0 0 0' > "$2/packets.tr"
"""


@pytest.fixture
def fake_tools(tmp_path):
    state = tmp_path / "state"
    state.mkdir()
    ns = tmp_path / "fake-ns"
    ns.write_text(FAKE_NS.format(state=state))
    ns.chmod(0o755)
    manifest = tmp_path / "manifest.json"
    manifest.write_text('{"binary": {"sha256": "fake"}}\n')
    return Toolchain(ns=ns, manifest=manifest, driver=REPO / "tcl" / "driver.tcl"), state


def one_run() -> Run:
    return Run("p", "e", {"case": "one"}, 1, {"seed": 1, "duration": 1.0})


def test_success_after_a_failure_removes_the_stale_failed_dir(fake_tools, tmp_path):
    tools, state = fake_tools
    (state / "fail").touch()
    results = tmp_path / "results"
    run = one_run()
    key = key_of(run, tools)
    first = execute(run, key, results, tools)
    assert first.status == "failed" and first.directory.name == f"{key}.failed"
    assert "no knob thresh" in (first.directory / "stderr.txt").read_text()
    (state / "fail").unlink()  # the cause is fixed (say, a flaky disk), the same key runs again
    second = execute(run, key, results, tools)
    assert second.status == "ran" and (second.directory / "meta.json").is_file()
    assert sorted(p.name for p in layout_mod.runs_dir(results).iterdir()) == [key], "no stale .failed beside it"


def test_a_complete_run_found_cached_also_clears_a_stale_failed_dir(fake_tools, tmp_path):
    tools, _ = fake_tools
    results, run = tmp_path / "results", one_run()
    key = key_of(run, tools)
    assert execute(run, key, results, tools).status == "ran"
    stale = layout_mod.runs_dir(results) / f"{key}.failed"  # as left by an older version of this module
    stale.mkdir()
    assert execute(run, key, results, tools).status == "cached"
    assert not stale.exists()


def test_a_parser_that_throws_fails_the_run(fake_tools, tmp_path):
    tools, _ = fake_tools
    results, run = tmp_path / "results", one_run()
    key = key_of(run, tools)

    def after(run, key, directory):
        assert (directory / "packets.tr").is_file()  # ns succeeded: the parser sees the raw outputs
        raise ValueError(f"{directory}/packets.tr: line 7: expected 12 fields\nsecond line of the message")

    outcome = execute(run, key, results, tools, after)
    runs = layout_mod.runs_dir(results)
    assert outcome.status == "failed" and outcome.directory == runs / f"{key}.failed"
    assert not (runs / key).exists(), "no run directory for a run whose parsing failed"
    assert not list(runs.glob(".*.tmp-*")), "no temporary directory left behind"
    assert "post-processing failed: ValueError:" in outcome.message and "expected 12 fields" in outcome.message
    assert f"{key}.failed/packets.tr: line 7" in outcome.message, "the error names the failed dir, not the temp dir"
    assert not (outcome.directory / "packets.tr").exists(), "the raw trace is removed from the failed dir"
    assert (outcome.directory / "params.json").is_file() and (outcome.directory / "meta.json").is_file()
    rerun = (outcome.directory / "rerun.sh").read_text().splitlines()
    assert rerun[0] == "#!/bin/sh" and rerun[-1] in outcome.message
    comments = rerun[1:-1]
    assert comments and all(line.startswith("# ") for line in comments), "every line of the error is a comment"
    assert "expected 12 fields" in "\n".join(comments) and "second line of the message" in "\n".join(comments)
    again = subprocess.run(["sh", str(outcome.directory / "rerun.sh")], capture_output=True, text=True)
    assert again.returncode == 0, again.stderr  # reruns ns (which succeeds) and nothing else


SLOW_NS = """#!/bin/sh
echo x >> "{state}/invocations"
sleep 0.5
echo '{{"links": []}}' > "$2/meta.json"
"""


def test_one_key_in_two_concurrent_jobs_runs_once(tmp_path):
    """A reading's batch and the baseline's may hold the same key at once (threads of one Snakemake process):
    one runs it, the other waits and finds it complete; no shared temporary directory, no failure."""
    state = tmp_path / "state"
    state.mkdir()
    ns = tmp_path / "slow-ns"
    ns.write_text(SLOW_NS.format(state=state))
    ns.chmod(0o755)
    manifest = tmp_path / "manifest.json"
    manifest.write_text('{"binary": {"sha256": "fake"}}\n')
    tools = Toolchain(ns=ns, manifest=manifest, driver=REPO / "tcl" / "driver.tcl")
    results, run = tmp_path / "results", one_run()
    key = key_of(run, tools)
    with ThreadPoolExecutor(max_workers=2) as pool:
        outcomes = list(pool.map(lambda _: execute(run, key, results, tools), range(2)))
    assert sorted(o.status for o in outcomes) == ["cached", "ran"]
    assert (state / "invocations").read_text() == "x\n", "ns ran once"
    assert sorted(p.name for p in layout_mod.runs_dir(results).iterdir()) == [key]
    assert (layout_mod.runs_dir(results) / key).stat().st_mode & 0o777 == 0o755


# ns crashing half-way in the run of seed 1: some raw output written, then SIGSEGV (as a null pointer in a
# patched queue would); the run of any other seed completes.
CRASHING_NS = """#!/bin/sh
echo '{"links": []}' > "$2/meta.json"
if grep -qx '  "seed": 1' "$2/params.json"; then
  echo 'half a line of a trac' > "$2/packets.tr"
  echo "about to crash" >&2
  kill -SEGV $$
fi
printf 'time\\tlink\\n' > "$2/queue_monitor.tsv"
"""


def test_a_crash_of_ns_fails_that_run_only_and_names_the_signal(fake_tools, tmp_path):
    tools, _ = fake_tools
    crashing = tmp_path / "crashing-ns"
    crashing.write_text(CRASHING_NS)
    crashing.chmod(0o755)
    crash_tools = Toolchain(ns=crashing, manifest=tools.manifest, driver=tools.driver)
    results = tmp_path / "results"
    crash, fine = one_run(), Run("p", "e", {"case": "two"}, 2, {"seed": 2, "duration": 1.0})
    outcome, other = run_batch([crash, fine], results, crash_tools, report=lambda _: None)
    assert (outcome.status, other.status) == ("failed", "ran"), "the batch's other run finishes beside it"
    assert (other.directory / "params.json").is_file()
    assert "ns was killed by signal 11 (SIGSEGV)" in outcome.message
    assert "about to crash" in outcome.message, "the stderr tail is in the message"
    runs = layout_mod.runs_dir(results)
    assert not (runs / outcome.key).exists(), "the half-written outputs are not a run"
    assert not (outcome.directory / "packets.tr").exists()
    assert (outcome.directory / "rerun.sh").read_text().splitlines()[-1].startswith(str(crashing))


# ns that never ends for seed 1 (a busy loop, as DSDV's livelock before ns2-patches/0025), and ends for any other.
LOOPING_NS = """#!/bin/sh
echo '{"links": []}' > "$2/meta.json"
if grep -qx '  "seed": 1' "$2/params.json"; then
  while :; do :; done
fi
printf 'time\\tlink\\n' > "$2/queue_monitor.tsv"
"""


def test_a_run_past_its_cpu_limit_fails_and_frees_its_slot(fake_tools, tmp_path):
    """Setting run_cpu_limit: a run that never ends is stopped at its CPU limit and recorded as failed, saying why;
    the batch's next run then runs. Without the limit (0) the same loop would hold the batch for ever."""
    tools, _ = fake_tools
    looping = tmp_path / "looping-ns"
    looping.write_text(LOOPING_NS)
    looping.chmod(0o755)
    limited = Toolchain(ns=looping, manifest=tools.manifest, driver=tools.driver, cpu_limit=1)
    assert key_of(one_run(), limited) == key_of(
        one_run(), Toolchain(ns=looping, manifest=tools.manifest, driver=tools.driver)
    ), "the limit is not in the key"
    results = tmp_path / "results"
    hung, fine = one_run(), Run("p", "e", {"case": "two"}, 2, {"seed": 2, "duration": 1.0})
    outcome, other = run_batch([hung, fine], results, limited, report=lambda _: None)
    assert (outcome.status, other.status) == ("failed", "ran")
    assert "ns used its CPU limit of 1 s (setting run_cpu_limit)" in outcome.message
    assert (outcome.directory / "rerun.sh").read_text().splitlines()[-1].startswith(str(looping))


def test_a_killed_run_s_temporary_directory_goes_when_its_key_runs_again(fake_tools, tmp_path):
    """kill -9 of the workflow leaves `.<key>.tmp-*` behind (no `finally` runs); the next run of that key, which
    holds the key's lock, removes it. Another key's temporary directory is not touched."""
    tools, _ = fake_tools
    results, run = tmp_path / "results", one_run()
    key = key_of(run, tools)
    runs = layout_mod.runs_dir(results)
    runs.mkdir(parents=True)
    (runs / f".{key}.tmp-abc123").mkdir()
    (runs / f".{key}.tmp-abc123" / "packets.tr").write_text("+ 0.1 2 0 tcp 10")
    (runs / ".otherkey.tmp-def456").mkdir()
    assert execute(run, key, results, tools).status == "ran"
    assert sorted(p.name for p in runs.iterdir()) == [".otherkey.tmp-def456", key]
