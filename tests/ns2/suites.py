"""Run ns-2's own validation suites (tcl/test/test-all-*) against ns binaries.

Each suite runs exactly as ns-2 documents it, `NS=<binary> ./test-all-<suite> quiet`
inside tcl/test of a copy of the source tree, and its stock template compares each
test's output with the gzipped reference in test-output-<suite>/. The suites write
temporary files in place, so every binary gets its own copy of the tree.

One deviation, for speed only: the template sleeps 1 s before each test so that
xgraph can start; quiet mode never starts xgraph, so a `sleep` that returns at once
is put first on PATH.

Also a command line that regenerates docs/VALIDATION.md:

    .venv/bin/python tests/ns2/suites.py --ours build/ns2/ns --reference /usr/bin/ns \\
        --markdown docs/VALIDATION.md [--all]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

# The suites the project requires; `--all` runs every test-all-* of the tree.
TITLE = "# Validation: ns-2's own suites on our binary and on Debian's, and broken builds\n\n"
MARK_BEGIN, MARK_END = "<!-- suites:begin -->", "<!-- suites:end -->"
REQUIRED_SUITES = ["red", "pi", "rem", "vq", "adaptive-red", "tcp", "newreno", "aimd", "monitor", "simple"]
SUITE_TIMEOUT_S = 1800

_OUTCOME_LINES = {
    "Test output agrees with reference output": "pass",
    "Test output differs from reference output": "differs",
    "Test not implemented": "not implemented",
    "saving output for future validation": "no reference",
}


@dataclass
class SuiteResult:
    suite: str
    binary: str
    exit_code: int
    outcomes: dict[str, str] = field(default_factory=dict)  # test name -> outcome
    command: str = ""

    @property
    def passed(self) -> set[str]:
        return {t for t, o in self.outcomes.items() if o == "pass"}

    @property
    def total(self) -> int:
        return len(self.outcomes)


def parse_template_output(text: str) -> dict[str, str]:
    """Outcome per test from test-all-template1's output.

    A test with no outcome line produced no temp.rands (the template calls that
    "unknown"); it is reported as "no output".
    """
    outcomes: dict[str, str] = {}
    current = None
    for line in text.splitlines():
        started = re.match(r"Running test (\S+):$", line)
        if started:
            current = started.group(1)
            outcomes[current] = "no output"
        elif current is not None and line.strip() in _OUTCOME_LINES:
            outcomes[current] = _OUTCOME_LINES[line.strip()]
    return outcomes


def prepare_tree(tarball: Path, dest: Path) -> Path:
    """Extract tcl/test and bin/ (the perl helpers) from the tarball; return tcl/test."""
    dest.mkdir(parents=True, exist_ok=True)
    subprocess.run(["tar", "-xf", str(tarball), "-C", str(dest), "ns-2.35/tcl/test", "ns-2.35/bin"], check=True)
    shim = dest / "shim"
    shim.mkdir(exist_ok=True)
    (shim / "sleep").write_text("#!/bin/sh\nexit 0\n")
    (shim / "sleep").chmod(0o755)
    return dest / "ns-2.35" / "tcl" / "test"


def list_suites(test_dir: Path) -> list[str]:
    names = (p.name.removeprefix("test-all-") for p in test_dir.glob("test-all-*"))
    return sorted(n for n in names if not n.startswith("template"))


def _start(test_dir: Path, suite: str, binary: Path, log) -> subprocess.Popen:
    env = dict(os.environ, NS=str(binary), PATH=f"{test_dir.parents[2] / 'shim'}:{os.environ['PATH']}")
    return subprocess.Popen(
        [f"./test-all-{suite}", "quiet"],
        cwd=test_dir,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
    )


def run_side_by_side(suite: str, runs: dict[str, tuple[Path, Path]], log_dir: Path) -> dict[str, SuiteResult]:
    """Run one suite for several binaries at once.

    runs: label -> (tcl/test directory of that binary's own tree copy, binary).
    """
    log_dir.mkdir(parents=True, exist_ok=True)
    procs = {}
    for label, (test_dir, binary) in runs.items():
        log = log_dir / f"{suite}.{label}.log"
        handle = open(log, "w")  # noqa: SIM115 -- closed once the child exits
        procs[label] = (_start(test_dir, suite, binary, handle), handle, log, binary)
    results = {}
    for label, (proc, handle, log, binary) in procs.items():
        try:
            code = proc.wait(timeout=SUITE_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            code = proc.wait()
        handle.close()
        results[label] = SuiteResult(
            suite=suite,
            binary=str(binary),
            exit_code=code,
            outcomes=parse_template_output(log.read_text(errors="replace")),
            command=f"cd ns-2.35/tcl/test && NS={binary} ./test-all-{suite} quiet",
        )
    return results


def verdict(ours: SuiteResult, ref: SuiteResult) -> str:
    lost = ref.passed - ours.passed
    if lost:
        return f"REGRESSION: {', '.join(sorted(lost))}"
    if ours.passed > ref.passed:
        return "ours passes more"
    if not ours.passed:
        return "no test passes on either"
    return "all pass" if len(ours.passed) == ours.total else "same tests pass"


def markdown_table(rows: list[tuple[SuiteResult, SuiteResult]], required: list[str]) -> str:
    lines = [
        "| suite | required | ours: passed / tests | Debian's ns: passed / tests | verdict |",
        "|---|---|---|---|---|",
    ]
    for ours, ref in rows:
        req = "yes" if ours.suite in required else ""
        counts = f"{len(ours.passed)} / {ours.total} | {len(ref.passed)} / {ref.total}"
        lines.append(f"| {ours.suite} | {req} | {counts} | {verdict(ours, ref)} |")
    ours_total = sum(len(o.passed) for o, _ in rows), sum(o.total for o, _ in rows)
    ref_total = sum(len(r.passed) for _, r in rows), sum(r.total for _, r in rows)
    lines.append(
        f"| **all {len(rows)} suites** | | {ours_total[0]} / {ours_total[1]} | {ref_total[0]} / {ref_total[1]} | |"
    )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Run ns-2 validation suites on two binaries side by side.")
    parser.add_argument("--ours", type=Path, default=Path("build/ns2/ns"))
    parser.add_argument("--reference", type=Path, default=Path("/usr/bin/ns"))
    parser.add_argument("--work", type=Path, default=Path("build/validation"))
    parser.add_argument("--all", action="store_true", help="every test-all-* suite, not only the required ones")
    parser.add_argument("--suite", action="append", help="only this suite (repeatable), e.g. simple")
    parser.add_argument("--markdown", type=Path, help="write the table to this file (docs/VALIDATION.md)")
    args = parser.parse_args(argv)

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "ns2-patches"))
    import ns2_build

    tarball = ns2_build.ensure_tarball()
    trees = {label: prepare_tree(tarball, args.work / label) for label in ("ours", "reference")}
    suites = args.suite or (list_suites(trees["ours"]) if args.all else REQUIRED_SUITES)
    rows = []
    for i, suite in enumerate(suites, 1):
        res = run_side_by_side(
            suite,
            {"ours": (trees["ours"], args.ours.resolve()), "reference": (trees["reference"], args.reference)},
            args.work / "logs",
        )
        rows.append((res["ours"], res["reference"]))
        print(
            f"[{i}/{len(suites)}] {suite}: ours {len(res['ours'].passed)}/{res['ours'].total}, "
            f"reference {len(res['reference'].passed)}/{res['reference'].total}",
            flush=True,
        )
    table = markdown_table(rows, REQUIRED_SUITES)
    if args.markdown:
        sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
        from perfdoc import write_section  # the file's other sections (tests/ns2/mutants.py) stay

        if not args.markdown.exists():
            args.markdown.write_text(TITLE)
        write_section(args.markdown, _document(table, args, suites), MARK_BEGIN, MARK_END)
    else:
        print(table)
    return 0


def _document(table: str, args: argparse.Namespace, suites: list[str]) -> str:
    manifest = json.loads((args.ours.parent / "manifest.json").read_text())
    ref_version = subprocess.run(
        ["dpkg-query", "-W", "-f=${Version}", "ns2"], capture_output=True, text=True
    ).stdout.strip()
    scope = "every `test-all-*` suite of the tree" if args.all else "the required suites"
    return f"""{MARK_BEGIN}
## ns-2's own suites

Generated by `.venv/bin/python tests/ns2/suites.py --ours {args.ours} --reference {args.reference}
--markdown {args.markdown}{" --all" if args.all else ""}` ({scope}; {len(suites)} suites).

- ours: `{args.ours}`, build key `{manifest["key"]}`, binary sha256 `{manifest["binary"]["sha256"][:16]}…`,
  patches {", ".join(p["name"] for p in manifest["series"]["patches"])}
- reference: Debian's packaged `ns` (`ns2` {ref_version}) at `{args.reference}`

Each suite runs as `NS=<binary> ./test-all-<suite> quiet` in `tcl/test` of its own copy of
the pinned tarball's tree; "passed" counts tests whose output is byte-identical to ns-2's
gzipped reference output. A regression is a test that passes on Debian's `ns` and not on
ours. The required suites are also checked on every CI run by
`tests/ns2/test_validation_suites.py`.

{table}{MARK_END}
"""


if __name__ == "__main__":
    sys.exit(main())
