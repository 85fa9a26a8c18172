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
import hashlib
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
    shim = test_dir.resolve().parents[2] / "shim"  # absolute: the suite runs in test_dir
    env = dict(os.environ, NS=str(binary), PATH=f"{shim}:{os.environ['PATH']}")
    return subprocess.Popen(
        [f"./test-all-{suite}", "quiet"],
        cwd=test_dir,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
    )


# Debian's packaged ns is the fixed reference: what its suites give is a function of its binary, the libraries and
# tools the suites run with, the tarball's tree and this harness, so it is kept under the build cache, keyed by all
# of them, and each suite runs on Debian's ns once per key (our binary runs every time). The packages: ns2 itself,
# the Tcl, OTcl and tclcl it links, and perl and gzip, which the suites' templates compare outputs with.
REFERENCE_PACKAGES = ["ns2", "libtcl8.6", "libotcl1", "libtclcl1", "perl", "gzip"]


def reference_cache(binary: Path, tarball: Path, root: Path) -> Path:
    """The folder holding the reference binary's suite results under this key (made when missing)."""
    digest = hashlib.sha256()
    for part in (binary.resolve().read_bytes(), tarball.read_bytes(), Path(__file__).read_bytes()):
        digest.update(hashlib.sha256(part).digest())
    for package in REFERENCE_PACKAGES:
        version = subprocess.run(["dpkg-query", "-W", "-f=${Version}", package], capture_output=True, text=True)
        digest.update(f"{package}={version.stdout.strip() if version.returncode == 0 else '-'}\n".encode())
    folder = root / "validation-reference" / digest.hexdigest()[:20]
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _cached(cache: Path | None, suite: str) -> SuiteResult | None:
    if cache is None or not (cache / f"{suite}.json").is_file():
        return None
    return SuiteResult(**json.loads((cache / f"{suite}.json").read_text()))


def _keep(cache: Path, result: SuiteResult) -> None:
    """Written whole, then renamed: a killed run leaves no half a result."""
    partial = cache / f".{result.suite}.json.{os.getpid()}"
    partial.write_text(json.dumps(result.__dict__, indent=1, sort_keys=True))
    partial.replace(cache / f"{result.suite}.json")


def run_side_by_side(
    suite: str, runs: dict[str, tuple[Path, Path]], log_dir: Path, caches: dict[str, Path] | None = None
) -> dict[str, SuiteResult]:
    """Run one suite for several binaries at once.

    runs: label -> (tcl/test directory of that binary's own tree copy, binary). caches: label -> the folder of
    reference_cache for a binary whose results are kept; a suite found there does not run on that binary again.
    A result that timed out is not kept.
    """
    caches = caches or {}
    log_dir.mkdir(parents=True, exist_ok=True)
    results = {label: found for label in runs if (found := _cached(caches.get(label), suite))}
    procs = {}
    for label, (test_dir, binary) in runs.items():
        if label in results:
            continue
        log = log_dir / f"{suite}.{label}.log"
        handle = open(log, "w")  # noqa: SIM115 -- closed once the child exits
        procs[label] = (_start(test_dir, suite, binary, handle), handle, log, binary)
    for label, (proc, handle, log, binary) in procs.items():
        timed_out = False
        try:
            code = proc.wait(timeout=SUITE_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            code, timed_out = proc.wait(), True
        handle.close()
        results[label] = SuiteResult(
            suite=suite,
            binary=str(binary),
            exit_code=code,
            outcomes=parse_template_output(log.read_text(errors="replace")),
            command=f"cd ns-2.35/tcl/test && NS={binary} ./test-all-{suite} quiet",
        )
        if label in caches and not timed_out:
            _keep(caches[label], results[label])
    return {label: results[label] for label in runs}


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
    parser.add_argument(
        "--no-cache", action="store_true", help="run every suite on the reference too, not only on a new key"
    )
    args = parser.parse_args(argv)

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "ns2-patches"))
    import ns2_build

    tarball = ns2_build.ensure_tarball()
    trees = {label: prepare_tree(tarball, args.work / label) for label in ("ours", "reference")}
    suites = args.suite or (list_suites(trees["ours"]) if args.all else REQUIRED_SUITES)
    caches = {} if args.no_cache else {"reference": reference_cache(args.reference, tarball, ns2_build.cache_root())}
    rows = []
    for i, suite in enumerate(suites, 1):
        res = run_side_by_side(
            suite,
            {"ours": (trees["ours"], args.ours.resolve()), "reference": (trees["reference"], args.reference)},
            args.work / "logs",
            caches,
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
`tests/ns2/test_validation_suites.py`. Debian's results are kept in the build cache under a key of
its binary, the packages it runs with, the tarball and this harness: each suite runs on Debian's `ns`
once per key (`--no-cache` runs them again); ours runs every time.

{table}{MARK_END}
"""


if __name__ == "__main__":
    sys.exit(main())
