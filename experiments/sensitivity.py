"""The sensitivity table: every reproduction and diagnostic claim judged under the baseline and
under each reading the file declares (experiments.readings), side by side.

A verdict is evidence only if it survives the readings the paper leaves open. For each
claim the table gives the baseline verdict and measured value, each reading's verdict
and value, and the readings that flip the verdict. Per paper, three lists follow:
- holds under every reading tried: pass or drift under the baseline and every reading;
- depends on the reading: holds under some, fails under others (the readings named);
- fails under every reading tried: the strongest evidence that the published result
  does not reproduce in ns-2.35 with the readings tried.
The three lists count reproduction claims only. A diagnostic claim (a quantity derived from
the paper's numbers that shows a mechanism) gets a line of its own: the readings under which
it holds, i.e. the readings whose mechanism matches the paper's.
A claim whose note blames some choices (`suspects`) is marked confirmed when a reading
of one of them changes its verdict, not confirmed when none does (a reading under which
the claim is missing, with nothing to measure, confirms nothing).
A reading whose table is not in the results folder (a folder only partly run, the table written by hand) is
`not run`, never `missing`: no evidence either way, like `missing` and `incomplete`, but a different reason.

Written as results/SENSITIVITY.md and, machine-readable, results/sensitivity.parquet
(one row per claim x reading).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import pandas as pd

from experiments import claims as claims_mod
from experiments import readings as readings_mod
from experiments.config import axes_of
from experiments.report import build_line, load_metrics, post_hoc_note, write_atomic

HOLDS = {"pass", "drift"}
NOT_RUN = "not run"  # the reading's metrics table is absent from the results folder
# nothing to judge, a run it needs failed, or the reading's runs absent: no evidence either way
UNMEASURED = {"missing", "incomplete", NOT_RUN}
COLUMNS = ["paper", "claim", "class", "row", "cell", "experiment", "reading", "choices", "verdict", "measured",
           "expected", "distance", "inherited"]  # fmt: skip
JUDGED_CLASSES = ("reproduction", "diagnostic")  # the classes the table judges under every reading


def claim_readings(doc: dict, experiment: str) -> list[tuple[readings_mod.Reading, dict]]:
    """(reading, the axis levels its claims are judged at) for every reading of an experiment, baseline first."""
    base_levels = readings_mod.reading_axes(doc, experiment)
    out = [(readings_mod.Reading(readings_mod.BASELINE), base_levels)]
    runs = [r for r in readings_mod.run_readings(doc) if experiment in readings_mod.experiments_of(doc, r)]
    out += [(r, base_levels) for r in runs]
    out += [(r, {**base_levels, **r.axis_levels}) for r in readings_mod.axis_readings(doc, experiment)]
    measures = readings_mod.measure_readings(doc)
    out += [(r, base_levels) for r in measures if experiment in readings_mod.experiments_of(doc, r)]
    return out


def reading_claim(claim: dict, reading: readings_mod.Reading) -> dict:
    """The claim as a reading judges it: a measure reading reads its alternative metric. A claim whose metric it
    does not replace gets the verdict of the runs the reading reads (`inherited`: the markdown leaves it out, the
    row ranking counts it, so that every reading of a row is ranked on all its claims)."""
    read = {"metric": reading.metrics.get(claim["metric"], claim["metric"])}
    if "per" in claim:
        read["per"] = reading.metrics.get(claim["per"], claim["per"])
    return {**claim, **read}


def reading_metrics(reading: readings_mod.Reading, baseline: dict, by_reading: dict) -> dict[str, pd.DataFrame]:
    """experiment -> the metrics a reading's claims are judged on: its own runs', or those of the runs it reads."""
    if reading.runs_anew:
        return by_reading.get(reading.label, {})
    if reading.metrics and reading.runs != readings_mod.BASELINE:
        return by_reading.get(reading.runs, {})
    return baseline


def table(doc: dict, baseline: dict[str, pd.DataFrame], by_reading: dict[str, dict[str, pd.DataFrame]]) -> pd.DataFrame:
    """One row per reproduction or diagnostic claim (per cell for combine: each) x reading; `by_reading`: run
    reading label -> experiment -> metrics."""
    rows = []
    for claim in doc["claims"]:
        if claim.get("class", "reproduction") not in JUDGED_CLASSES:
            continue
        exp = claim["experiment"]
        axes = list(axes_of(doc["experiments"][exp]))
        for reading, fixed in claim_readings(doc, exp):
            judged_claim = reading_claim(claim, reading)
            metrics = reading_metrics(reading, baseline, by_reading).get(exp)
            if metrics is None:
                judged = not_run(claim)
            else:
                cells = claims_mod.evaluate(judged_claim, metrics, axes, fixed)
                judged = claims_mod.combine(claim, cells or [claims_mod.missing(claim)])
            for cv in judged:
                rows.append({
                    "paper": doc["paper"], "claim": cv.claim, "class": cv.cls, "row": claim.get("row", ""),
                    "cell": cv.deciding.group if cv.combine == "each" else "",
                    "experiment": exp, "reading": reading.label,
                    "choices": ",".join(f"{c}={a}" for c, a in reading.choices),
                    "verdict": cv.verdict, "measured": cv.deciding.measured, "expected": cv.deciding.expected,
                    "distance": relative_distance(claim, cv.deciding.value),
                    "inherited": bool(reading.metrics) and not reading.metrics.keys() & claims_mod.claim_metrics(claim),
                })  # fmt: skip
    return pd.DataFrame(rows, columns=COLUMNS)


def not_run(claim: dict) -> list[claims_mod.ClaimVerdict]:
    """The claim under a reading whose metrics table is absent: like missing, named for its cause."""
    absent = replace(claims_mod.missing(claim), verdict=NOT_RUN, note="this reading's runs are not in the folder")
    return [
        replace(cv, verdict=NOT_RUN, deciding=absent, cells=[absent])
        for cv in claims_mod.combine(claim, [claims_mod.missing(claim)])
    ]


def relative_distance(claim: dict, value: float) -> float:
    """|measured - expected| / |expected| of a value, ratio or slope claim (nan for other kinds, or expected 0)."""
    expected = claim.get("expected")
    if expected in (None, 0) or claim["kind"] not in ("value", "ratio", "slope"):
        return float("nan")
    return abs(value - expected) / abs(expected)


def row_ranking(rows: pd.DataFrame) -> pd.DataFrame:
    """Per published row and reading: claims judged, how many hold (pass or drift), pass, and the mean relative
    distance of its value claims; best first (most holding, then most passing, then the smallest distance)."""
    rows = rows[rows["row"] != ""]
    # a reading that concerns none of a row's claims (a measure reading of other metrics) says nothing new of it
    concerns = ~rows.groupby(["row", "reading"], sort=False)["inherited"].transform("all").astype(bool)
    rows = rows[concerns | (rows["reading"] == readings_mod.BASELINE)]
    stats = rows.groupby(["row", "reading"], sort=False).agg(
        claims=("claim", "size"),
        holds=("verdict", lambda v: int(v.isin(list(HOLDS)).sum())),
        passes=("verdict", lambda v: int((v == "pass").sum())),
        distance=("distance", "mean"),
    )
    stats = stats.reset_index()
    return stats.sort_values(["row", "holds", "passes", "distance"], ascending=[True, False, False, True],
                             kind="stable", na_position="last")  # fmt: skip


def row_lines(rows: pd.DataFrame, shown: int = 5) -> list[str]:
    """Markdown: per published row, the readings that explain its claims best, and the baseline."""
    ranking = row_ranking(rows)
    lines = []
    for row, part in ranking.groupby("row", sort=False):
        top = part.head(shown)
        base = part[part["reading"] == readings_mod.BASELINE]
        table = pd.concat([top, base]).drop_duplicates("reading")
        lines += [
            f"**{row}** ({int(part['claims'].max())} claims): readings best first "
            f"(of {len(part)} tried; the baseline last if it is not among them)",
            "",
            "| reading | hold (pass or drift) | pass | mean relative distance of the values |",
            "|---|---|---|---|",
        ]
        for r in table.itertuples():
            distance = "-" if pd.isna(r.distance) else f"{r.distance:.2f}"
            lines.append(f"| {r.reading} | {r.holds} of {r.claims} | {r.passes} | {distance} |")
        lines.append("")
    return lines


def classify(verdicts: dict[str, str]) -> str:
    """holds / fails / depends / not measured, from {reading: verdict} (unmeasured readings left out)."""
    measured = {r: v for r, v in verdicts.items() if v not in UNMEASURED}
    if not measured:
        return "not measured"
    if all(v in HOLDS for v in measured.values()):
        return "holds"
    if all(v == "fail" for v in measured.values()):
        return "fails"
    return "depends"


def flips(verdicts: dict[str, str]) -> list[str]:
    """The readings whose verdict differs from the baseline's, both measured: a reading left unmeasured (a cell it
    did not run, a failed run) flips nothing, and nothing flips a baseline left unmeasured."""
    base = verdicts.get(readings_mod.BASELINE)
    if base is None or base in UNMEASURED:
        return []
    return [r for r, v in verdicts.items() if r != readings_mod.BASELINE and v != base and v not in UNMEASURED]


def _claim_key(row) -> str:
    return f"{row['claim']} [{row['cell']}]" if row["cell"] else row["claim"]


@dataclass
class ClaimReadings:
    """A claim (a cell of a combine: each claim) under the readings of its experiment: its rows of the table."""

    key: str  # the claim, with its cell for combine: each
    rows: pd.DataFrame

    @property
    def claim(self) -> str:
        return self.rows["claim"].iloc[0]

    @property
    def cls(self) -> str:
        return self.rows["class"].iloc[0]

    @property
    def verdicts(self) -> dict[str, str]:
        """reading -> verdict"""
        return dict(zip(self.rows["reading"], self.rows["verdict"], strict=True))

    @property
    def measured(self) -> dict[str, str]:
        """reading -> measured value"""
        return dict(zip(self.rows["reading"], self.rows["measured"], strict=True))

    @property
    def flipped(self) -> list[str]:
        return flips(self.verdicts)

    @property
    def kind(self) -> str:
        return classify(self.verdicts)


@dataclass
class ExperimentReadings:
    experiment: str
    readings: list[str]  # in the table's order, the baseline first
    claims: list[ClaimReadings]


def by_experiment(rows: pd.DataFrame) -> list[ExperimentReadings]:
    """A paper's rows of the table per experiment and claim, in the table's order; inherited verdicts left out."""
    rows = rows[~rows["inherited"].astype(bool)]
    rows = rows.assign(key=rows.apply(_claim_key, axis=1))
    return [
        ExperimentReadings(exp, list(dict.fromkeys(part["reading"])),
                           [ClaimReadings(key, claim_rows) for key, claim_rows in part.groupby("key", sort=False)])
        for exp, part in rows.groupby("experiment", sort=False)
    ]  # fmt: skip


def paper_markdown(doc: dict, rows: pd.DataFrame) -> list[str]:
    lines = [f"## {doc['paper']}", ""]
    if rows.empty:
        return lines + ["No reproduction claims.", ""]
    suspects = {c["id"]: c.get("suspects", []) for c in doc["claims"]}
    lists: dict[str, list[str]] = {"holds": [], "depends": [], "fails": [], "not measured": []}
    diagnostics, hypotheses = [], []
    for exp in by_experiment(rows):
        order = exp.readings
        lines += [f"### {exp.experiment}", "", "| claim | " + " | ".join(order) + " | flipped by |",
                  "|---" * (len(order) + 2) + "|"]  # fmt: skip
        for c in exp.claims:
            verdicts, measured, flipped, kind = c.verdicts, c.measured, c.flipped, c.kind
            cells = [f"**{verdicts[r]}** {measured[r]}".strip() if r in verdicts else "-" for r in order]
            lines.append("| " + " | ".join([c.key, *cells, ", ".join(flipped) or "none"]).replace("\n", " ") + " |")
            if c.cls == "diagnostic":
                diagnostics.append(_diagnostic_line(c.key, verdicts))
            elif kind == "depends":
                holds_in = [r for r, v in verdicts.items() if v in HOLDS]
                lists[kind].append(f"`{c.key}`: holds under {', '.join(holds_in)}")
            else:
                lists[kind].append(f"`{c.key}`")
            blamed = suspects.get(c.claim, [])
            if blamed:
                hypotheses.append(_hypothesis(c.key, blamed, c.rows, flipped))
        lines.append("")
    titles = {"holds": "Holds under every reading tried", "depends": "Depends on the reading",
              "fails": "Fails under every reading tried", "not measured": "Not measured"}  # fmt: skip
    for kind, title in titles.items():
        if lists[kind]:
            lines += [f"**{title}** ({len(lists[kind])}): " + "; ".join(lists[kind]) + ".", ""]
    if diagnostics:
        lines += ["**Diagnostics** (derived from the paper's numbers; not counted above): the readings whose "
                  "mechanism matches the paper's", ""] + diagnostics + [""]  # fmt: skip
    if hypotheses:
        lines += ["**Hypotheses in the notes**", ""] + hypotheses + [""]
    post_hoc = post_hoc_lines(doc)
    if post_hoc:
        lines += ["**Readings declared after the verdicts were seen** (a verdict they flip tests a hypothesis; it "
                  "was not decided before the runs)", ""] + post_hoc + [""]  # fmt: skip
    if (rows["row"] != "").any():
        lines += ["**Which reading explains each published row best**", ""] + row_lines(rows)
    return lines


def post_hoc_lines(doc: dict) -> list[str]:
    """One line per alternative marked post_hoc in the paper's choices."""
    return [f"- `{c['id']}={a['label']}`{post_hoc_note(a)}." for c in doc.get("choices", [])
            for a in c.get("alternatives", []) if "post_hoc" in a]  # fmt: skip


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
    return (f"- `{key}` blames {', '.join(blamed)}: not confirmed by {', '.join(tried)}, whose alternatives leave "
            f"the verdict as it is or unmeasured{rest}.")  # fmt: skip


def write(docs: list[dict], results: str | Path, manifest: str | Path, out_md: str | Path, out_parquet: str | Path,
          profile: str, run_readings: dict[str, dict[str, list[str]]]) -> None:  # fmt: skip
    """SENSITIVITY.md and sensitivity.parquet; `run_readings`: paper -> run reading label -> its experiments."""
    from experiments.aggregate import write_parquet

    results = Path(results)
    frames, body = [], []
    for doc in docs:
        by_reading = {
            label: load_metrics(doc, results, f"readings/{label}") for label in run_readings.get(doc["paper"], {})
        }
        rows = table(doc, load_metrics(doc, results), by_reading)
        frames.append(rows)
        body += paper_markdown(doc, rows)
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
        "all), **incomplete** (a run it needs failed) and **not run** (that reading's runs are not in this results "
        "folder).",
        "",
    ]
    write_atomic(out_md, "\n".join(head + body))
    table_all = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=COLUMNS)
    write_parquet(table_all, out_parquet, "sensitivity")
