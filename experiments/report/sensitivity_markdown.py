"""results/SENSITIVITY.md: per paper and experiment, each claim's verdict and value under every reading
(verdicts.sensitivity's table), the readings that flip it, and three lists:
- holds under every reading tried: pass or drift under the baseline and every reading;
- depends on the reading: holds under some, fails under others (the readings named);
- fails under every reading tried: the strongest evidence that the published result does not reproduce in ns-2.35
  with the readings tried.
The three lists count reproduction claims only. A diagnostic claim (a quantity derived from the paper's numbers that
shows a mechanism) gets a line of its own: the readings under which it holds, i.e. the readings whose mechanism
matches the paper's. A claim whose note blames some choices (`suspects`) is marked confirmed when a reading of one of
them changes its verdict, not confirmed when none does (a reading under which the claim is missing, with nothing to
measure, confirms nothing). Written with the table itself, results/sensitivity.parquet.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

import pandas as pd

from experiments.common import markdown
from experiments.common.files import write_atomic
from experiments.common.processes import in_processes
from experiments.config.readings import BASELINE
from experiments.report.model import build_line, post_hoc_note
from experiments.store.tables import CAUSE, Measured, load_measured, write_parquet
from experiments.verdicts import preconditions
from experiments.verdicts.seeding import SeedPolicy, SeedRounds
from experiments.verdicts.sensitivity import (
    COLUMNS,
    HOLDS,
    NON_DISCRIMINATING,
    NOT_RUN,
    UNMEASURED,
    by_experiment,
    row_ranking,
    table,
)


def row_lines(rows: pd.DataFrame, shown: int = 5) -> list[str]:
    """Markdown: per published row, the readings that explain its claims best, and the baseline."""
    ranking = row_ranking(rows)
    lines = []
    for row, part in ranking.groupby("row", sort=False):
        top = part.head(shown)
        base = part[part["reading"] == BASELINE]
        table = pd.concat([top, base]).drop_duplicates("reading")
        lines += [
            f"**{row}** ({int(part['claims'].max())} claims): readings best first "
            f"(of {len(part)} tried; the baseline last if it is not among them)",
            "",
        ]
        headers = ["reading", "hold (pass or drift)", "pass", "mean relative distance of the values"]
        lines += markdown.table(
            headers,
            [
                [r.reading, f"{r.holds} of {r.claims}", r.passes, "-" if pd.isna(r.distance) else f"{r.distance:.2f}"]
                for r in table.itertuples()
            ],
        )
        lines.append("")
    return lines


def void_lines(baseline: dict[str, Measured], by_reading: dict[str, dict[str, Measured]]) -> list[str]:
    """Markdown: per run reading (the baseline first), the runs its preconditions void, by experiment and cause
    (`baseline`, `by_reading`: as verdicts.preconditions.apply returns them)."""
    lines = []
    for label, measured in {BASELINE: baseline, **by_reading}.items():
        counts = []
        for exp, tables in measured.items():
            lost = tables.failed
            if CAUSE in lost and lost[CAUSE].notna().any():
                by_cause = lost[CAUSE].dropna().str.partition(":")[0].value_counts().sort_index()
                counts += [f"{n} of {exp} ({cause})" for cause, n in by_cause.items()]
        if counts:
            lines.append(f"- {label}: " + ", ".join(counts))
    if not lines:
        return []
    head = (
        "**Runs void by a precondition** (a claim's cells that read them are incomplete under that reading, never a "
        "pass: a run whose link went dead is no evidence)"
    )
    return [head, "", *lines, ""]


def paper_markdown(doc: dict, rows: pd.DataFrame, voided: list[str] | None = None) -> list[str]:
    """`voided`: void_lines of the paper."""
    lines = [f"## {doc['paper']}", ""]
    if rows.empty:
        return lines + ["No reproduction claims.", ""]
    suspects = {c["id"]: c.get("suspects", []) for c in doc["claims"]}
    lists: dict[str, list[str]] = {"holds": [], "depends": [], "fails": [], "not measured": [], NON_DISCRIMINATING: []}
    diagnostics, hypotheses = [], []
    nulls = set(rows.loc[rows["null"].astype(bool), "reading"])
    for exp in by_experiment(rows):
        order = exp.readings
        lines += [
            f"### {exp.experiment}",
            "",
        ]
        claim_rows = []
        for c in exp.claims:
            verdicts, measured, flipped, kind = c.verdicts, c.measured, c.flipped, c.kind
            shown = {**verdicts, **c.null_verdicts}
            cells = [f"**{shown[r]}** {measured[r]}".strip() if r in shown else "-" for r in order]
            claim_rows.append([c.key, *cells, ", ".join(flipped) or "none"])
            if c.cls == "diagnostic":
                diagnostics.append(_diagnostic_line(c.key, verdicts))
            elif c.discriminates == NON_DISCRIMINATING:
                held = [r for r, v in c.null_verdicts.items() if v in HOLDS]
                lists[NON_DISCRIMINATING].append(f"`{c.key}`: holds under {', '.join(held)} too")
            elif kind == "depends":
                holds_in = [r for r, v in verdicts.items() if v in HOLDS]
                lists[kind].append(f"`{c.key}`: holds under {', '.join(holds_in)}")
            else:
                lists[kind].append(f"`{c.key}`")
            blamed = suspects.get(c.claim, [])
            if blamed:
                hypotheses.append(_hypothesis(c.key, blamed, c.rows, flipped))
        headers = [f"{r} (null)" if r in nulls else r for r in order]
        lines += [*markdown.table(["claim", *headers, "flipped by"], claim_rows), ""]
    titles = {
        "holds": "Holds under every reading tried",
        "depends": "Depends on the reading",
        "fails": "Fails under every reading tried",
        "not measured": "Not measured",
        NON_DISCRIMINATING: "Holds with the paper's mechanism switched off too (non-discriminating: no evidence for "
        "the mechanism, not counted above)",
    }
    for kind, title in titles.items():
        if lists[kind]:
            lines += [f"**{title}** ({len(lists[kind])}): " + "; ".join(lists[kind]) + ".", ""]
    if diagnostics:
        lines += (
            [
                "**Diagnostics** (derived from the paper's numbers; not counted above): the readings whose "
                "mechanism matches the paper's",
                "",
            ]
            + diagnostics
            + [""]
        )
    if hypotheses:
        lines += ["**Hypotheses in the notes**", ""] + hypotheses + [""]
    lines += voided or []
    post_hoc = post_hoc_lines(doc)
    if post_hoc:
        lines += (
            [
                "**Readings declared after the verdicts were seen** (a verdict they flip tests a hypothesis; it "
                "was not decided before the runs)",
                "",
            ]
            + post_hoc
            + [""]
        )
    if (rows["row"] != "").any():
        lines += ["**Which reading explains each published row best**", ""] + row_lines(rows)
    return lines


def post_hoc_lines(doc: dict) -> list[str]:
    """One line per alternative marked post_hoc in the paper's choices."""
    return [
        f"- `{c['id']}={a['label']}`{post_hoc_note(a)}."
        for c in doc.get("choices", [])
        for a in c.get("alternatives", [])
        if "post_hoc" in a
    ]


def _diagnostic_line(key: str, verdicts: dict[str, str]) -> str:
    """Under which readings a diagnostic claim holds (pass or drift), or that none does."""
    holds_in = [f"{r} ({v})" for r, v in verdicts.items() if v in HOLDS]
    if holds_in:
        return f"- `{key}`: holds under {', '.join(holds_in)}."
    measured = [r for r, v in verdicts.items() if v not in UNMEASURED]
    return f"- `{key}`: holds under none of the {len(measured)} readings measured."


def _hypothesis(key: str, blamed: list[str], claim_rows: pd.DataFrame, flipped: list[str]) -> str:
    """Whether the readings of the choices a note blames change the claim's verdict; untried suspects named."""
    tried_choices = {part.split("=")[0] for r in claim_rows["choices"] for part in r.split(",") if part}
    tried = [c for c in blamed if c in tried_choices]
    untried = [c for c in blamed if c not in tried_choices]
    rest = f" ({', '.join(untried)}: no alternative run)" if untried and tried else ""
    if not tried:
        return f"- `{key}` blames {', '.join(blamed)}: no alternative of those was run for it."
    verdicts = dict(zip(claim_rows["reading"], claim_rows["verdict"], strict=True))
    theirs = [r for r in flipped if any(part.split("=")[0] in tried for part in r.split("+"))]
    # A reading under which the claim is missing (nothing to measure, e.g. no loss at all) shows no verdict that
    # the suspect would change: it neither confirms nor refutes the hypothesis.
    changed = [r for r in theirs if verdicts.get(r) not in UNMEASURED]
    for verdict, why in (("missing", "nothing to measure"), ("incomplete", "a run failed"), (NOT_RUN, "no runs")):
        unmeasured = [r for r in theirs if verdicts.get(r) == verdict]
        if unmeasured:
            rest += f"; {why} ({verdict}) under {', '.join(unmeasured)}"
    if changed:
        return f"- `{key}` blames {', '.join(blamed)}: confirmed, the verdict changes under {', '.join(changed)}{rest}."
    return (
        f"- `{key}` blames {', '.join(blamed)}: not confirmed by {', '.join(tried)}, whose alternatives leave "
        f"the verdict as it is or unmeasured{rest}."
    )


def write(
    docs: list[dict],
    results: str | Path,
    manifest: str | Path,
    out_md: str | Path,
    out_parquet: str | Path,
    profile: str,
    run_readings: dict[str, dict[str, list[str]]],
    rounds: SeedRounds | None = None,
    only_null: bool = False,
    workers: int = 1,
) -> None:
    """SENSITIVITY.md and sensitivity.parquet; `run_readings`: paper -> run reading label -> its experiments;
    `rounds`: the seeding rounds run (the baseline's verdicts read the seeds they added, as REPORT.md's);
    `only_null`: the null readings alone (the setting `readings: null`); `workers`: papers judged at a time, each in
    a process of its own (the same bytes as one at a time)."""
    judge = partial(
        paper_section,
        results=Path(results),
        run_readings=run_readings,
        rounds=rounds or SeedRounds(SeedPolicy(1, 0)),
        only_null=only_null,
    )
    frames, body = [], []
    # one paper's table is most of the work (Alemu's thesis judges 412 claims of 815): the most claims first
    for rows, lines in in_processes(judge, docs, workers, cost=lambda doc: len(doc["claims"])):
        frames.append(rows)
        body += lines
    head = [
        "# Sensitivity of the verdicts to the open choices",
        "",
        build_line(manifest, profile),
        "",
        "Each reproduction and diagnostic claim judged (as in REPORT.md: one verdict per claim) under the baseline, "
        "the reading chosen where the paper is silent, and under each alternative declared for those choices, one "
        "at a time (and together where the file asks for interactions). `choice=label` names a reading. A claim "
        "that holds (pass or drift) under every reading is robust to the choices tried; one that fails under every "
        "reading is the strongest evidence that the published result does not reproduce here. The holds / depends "
        "/ fails lists count reproduction claims; diagnostics are listed apart. Three verdicts are no evidence either "
        "way and are left out of the lists: **missing** (nothing to measure under that reading, e.g. no loss at "
        "all), **incomplete** (a run it needs failed, or a precondition voids it) and **not run** (that reading's "
        "runs are not in this results folder).",
        "",
    ]
    if only_null:
        head += [
            "**Null readings alone** (the setting `readings: null`): the alternatives of the open choices were not "
            "run, so the holds / depends / fails lists judge the baseline alone. What this table tells is which "
            "reproduction claims discriminate: those that hold under a null reading too are listed apart.",
            "",
        ]
    write_atomic(out_md, "\n".join(head + body))
    table_all = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=COLUMNS)
    write_parquet(table_all, out_parquet, "sensitivity")


def paper_section(
    doc: dict, results: Path, run_readings: dict[str, dict[str, list[str]]], rounds: SeedRounds, only_null: bool
) -> tuple[pd.DataFrame, list[str]]:
    """One paper's rows of the table and its section of SENSITIVITY.md."""
    by_reading = {label: load_measured(doc, results, label) for label in run_readings.get(doc["paper"], {})}
    baseline = load_measured(doc, results, seed_rounds=rounds.tables(doc["paper"]))
    # the runs a precondition voids, found once for the table and the list of them
    baseline = preconditions.apply(doc, baseline)
    by_reading = {label: preconditions.apply(doc, measured) for label, measured in by_reading.items()}
    rows = table(doc, baseline, by_reading, rounds.judging(doc), only_null)
    return rows, paper_markdown(doc, rows, void_lines(baseline, by_reading))
