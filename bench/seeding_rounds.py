"""Measurement (issue 48): what the seeding rounds decided and what they cost, per paper, in a finished sweep.

    .venv/bin/python bench/seeding_rounds.py [--sweep RESULTS[=FILE,FILE...] ...] [--profile smoke]
                                             [--label TEXT] [--markdown docs/PERFORMANCE.md]

Reads each results folder holding a finished `reproduce-all` (the seeding rounds included: <results>/seed-rounds/;
`--sweep` names the folder and, after `=`, the experiment files that sweep was given; default `results` with every
configs/*.yaml) and
judges each paper's reproduction claims three ways from the same runs: with the starting seeds at 95 % (as with
`--config seed_budget=0`), with the starting seeds at the first look's confidence (the rounds' Bonferroni share),
and after the rounds, as the report does. Per paper: the verdict counts each way, the claims the rounds were sent
for, what became of them, the runs the rounds added and the rounds that added any. Nothing is run; `--label` names
the sweeps in the section (their commit, profile and commands), which the script cannot know. `--profile`: the
profile they ran on (its settings file, profiles/<name>/settings.yaml; the default profile has none), so that each
experiment is cut as the sweep cut it.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from collections import Counter
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))
sys.path.insert(0, str(REPO))

from perfdoc import publish  # noqa: E402

from experiments.planning.profiles import Settings  # noqa: E402
from experiments.report.model import paper_data  # noqa: E402
from experiments.verdicts.seeding import SeedPolicy, SeedRounds  # noqa: E402
from experiments.workflow.jobs import seed_schedules  # noqa: E402
from experiments.workflow.plan import plan  # noqa: E402

MARK_BEGIN, MARK_END = "<!-- seeding-rounds:begin -->", "<!-- seeding-rounds:end -->"
VERDICTS = ("pass", "drift", "fail", "incomplete", "missing")
VIEWS = ("starting seeds, 95 %", "starting seeds, first look", "after the rounds")


def rounds_run(results: Path) -> list[str]:
    """The schedules of the rounds the workflow ran: up to and including the first that added no runs."""
    used = []
    for path in seed_schedules([str(p) for p in (results / "seed-rounds").glob("round*.json")]):
        used.append(path)
        if not json.loads(Path(path).read_text())["runs"]:
            break
    return used


def counts(data) -> str:
    got = Counter(cv.verdict for cv in data.verdicts if cv.cls == "reproduction")
    undecided = sum(1 for cv in data.verdicts if cv.cls == "reproduction" and cv.undecided_cells)
    return ", ".join(f"{got[v]} {v}" for v in VERDICTS if got[v]) + f" ({undecided} undecided)"


def sweep_rows(results: Path, files: list[str], profile: str | None) -> list[str]:
    """The table's rows of one sweep's papers."""
    config = yaml.safe_load((REPO / "profiles" / profile / "settings.yaml").read_text()) if profile else {}
    config |= {"results": str(results), **({"experiment_files": files} if files else {})}
    p = plan(Settings.from_config(config), None)
    used = rounds_run(results)
    views = [SeedRounds(SeedPolicy(1, 0)), SeedRounds(p.policy), SeedRounds.load(p.policy, used)]  # VIEWS' order
    rows = []
    for doc in p.docs.values():
        judged = [paper_data(doc, results, None, rounds) for rounds in views]
        sent, became, added = judged[-1].seeding_outcome
        outcome = ", ".join(f"{n} {v}" for v, n in sorted(became.items())) or "—"
        rows.append(
            f"| {doc['paper']} | " + " | ".join(counts(d) for d in judged) + f" | {sent} | {outcome} | "
            f"{added:,} | {judged[-1].rounds} of {len(used)} |"
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sweep", action="append", metavar="RESULTS[=FILE,FILE...]", help="a finished sweep's folder")
    ap.add_argument("--profile", help="the sweeps' profile, if not the default (profiles/<name>/settings.yaml)")
    ap.add_argument("--label", default="", help="the sweeps measured: commit, profile, commands")
    ap.add_argument("--markdown", type=Path, help="write the section into this file (docs/PERFORMANCE.md)")
    args = ap.parse_args(argv)
    rows = []
    for sweep in args.sweep or ["results"]:
        folder, _, files = sweep.partition("=")
        rows += sweep_rows(Path(folder), [f for f in files.split(",") if f], args.profile)
    # the label is shown after the command, not inside it
    given = argv if argv is not None else sys.argv[1:]
    shown = [a for i, a in enumerate(given) if a != "--label" and (i == 0 or given[i - 1] != "--label")]
    command = ".venv/bin/python bench/seeding_rounds.py " + shlex.join(shown)
    lines = [
        MARK_BEGIN,
        "## Seeding rounds: what they decided and what they cost",
        "",
        f"Command: `{command}`" + (f", on {args.label}" if args.label else "") + ". "
        "Reproduction claims judged from the same runs three ways: the starting seeds at 95 % (what "
        "`--config seed_budget=0` reports), the starting seeds at the first look's confidence (the rounds' share "
        "of 5 %), and after the rounds (the report's). *Sent*: the claims the rounds were sent for (undecided only "
        "because an interval holds 0); *now*: what each of them is after the rounds.",
        "",
        "| paper | " + " | ".join(VIEWS) + " | sent | now | runs added | rounds adding its runs |",
        "|---|---|---|---|---|---|---|---|",
        *rows,
        MARK_END,
    ]
    publish("\n".join(lines), args.markdown, MARK_BEGIN, MARK_END)
    return 0


if __name__ == "__main__":
    sys.exit(main())
