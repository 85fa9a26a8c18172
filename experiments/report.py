"""results/REPORT.md: per paper, every claim's one verdict, by class, with measured vs
expected value; the per-cell detail; the choices made where the paper is silent with the
alternatives declared for them; and where the figures and tables are.

Published numbers appear here only as the claims' expected values, beside what the
runs measured. A note holds a hypothesis; a measured value in it is a placeholder
filled here from the runs ({{metric ...}}). The report carries no timestamp: same
results, same bytes.

What the section of a paper says is computed once (`paper_data`: its claims judged, their notes filled, its failed
runs traced to what they would have fed) and rendered twice: as Markdown here, as HTML pages by
experiments.html_report.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from experiments import claims as claims_mod
from experiments.config import axes_of, fill_placeholders, label_column, label_text
from experiments.readings import reading_axes

VERDICTS = claims_mod.VERDICTS
CLASSES = {
    "reproduction": ("Reproduction claims", "The paper's evidence; the only class in the headline counts."),
    "sanity": (
        "Sanity checks",
        "True by construction of our implementation, or an invariant: they test our build, not the paper.",
    ),  # fmt: skip
    "calibrated": (
        "Calibrated values",
        "A free parameter was fitted to these numbers: agreement here is by construction and never counts as evidence.",
    ),  # fmt: skip
    "not_comparable": ("Not comparable", "The paper's setting for these is unknown: shown, not judged as evidence."),
    "diagnostic": (
        "Diagnostics",
        "Quantities we derive from the paper's own numbers to show a mechanism: judged, not counted, as they "
        "restate claims counted above.",
    ),  # fmt: skip
}


def _cell(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def metric_cell(verdict: claims_mod.Verdict) -> str:
    """The metric, with the scope beside it unless it is `all`: `core_drops_per_s [group:http]`."""
    return verdict.metric if verdict.scope == "all" else f"{verdict.metric} [{verdict.scope}]"


def counts_text(counts: Counter) -> str:
    return ", ".join(f"{counts[k]} {k}" for k in VERDICTS if counts[k]) or "none"


def fill_note(note: str, claim: dict, metrics: pd.DataFrame | None, fixed: dict | None = None) -> str:
    """The note with each {{metric key=value ...}} replaced by the mean of that metric over the claim's runs (its
    `where` and reading levels, narrowed by the given axis labels; `scope=` replaces the claim's scope)."""

    def value(metric: str, narrow: dict) -> str:
        narrow = dict(narrow)
        scope = narrow.pop("scope", claim.get("scope", "all"))
        if metrics is None:
            return f"[{metric}: not measured]"
        one_metric = {**claim, "kind": "value", "metric": metric, "scope": scope}  # not a slope's `per` as well
        rows = claims_mod.claim_rows(one_metric, metrics, {**(fixed or {}), **narrow})
        for axis, label in narrow.items():  # a narrowing label also overrides the claim's own `where`
            if axis in rows:
                rows = rows[label_column(rows[axis]) == label_text(label)]
        values = rows["value"].dropna()
        runs = f"{len(values)} run" + ("s" if len(values) != 1 else "")
        return f"{values.mean():.4g} (mean of {runs})" if len(values) else f"[{metric}: no value]"

    return fill_placeholders(note, value)


@dataclass(frozen=True)
class ClaimRow:
    """A claim's verdict (one per cell for combine: each) as a row of either report's claim table."""

    claim: str
    source: str
    cls: str
    experiment: str
    metric: str  # metric_cell: the metric, with its scope unless `all`
    expected: str
    measured: str  # mean ± 95 % CI half-width; of a claim over several cells, the deciding cell's, named
    tolerance: str
    seeds: int
    cells: str  # the cell judged, or the combine rule and its cells' verdict counts
    verdict: str
    note: str  # the deciding cell's note, then the claim's own with its placeholders filled


def claim_row(cv: claims_mod.ClaimVerdict, notes: dict[str, str]) -> ClaimRow:
    d = cv.deciding
    return ClaimRow(
        claim=cv.claim,
        source=d.source,
        cls=cv.cls,
        experiment=d.experiment,
        metric=metric_cell(d),
        expected=d.expected,
        measured=d.measured if len(cv.cells) == 1 else f"{d.group}: {d.measured}",
        tolerance=d.tolerance,
        seeds=d.seeds,
        cells=f"{cv.combine}: {cv.cell_counts}" if len(cv.cells) > 1 else d.group,
        verdict=cv.verdict,
        note="; ".join(n for n in (d.note, notes.get(cv.claim, "")) if n),
    )


def claim_table(verdicts: list[claims_mod.ClaimVerdict], notes: dict[str, str]) -> list[str]:
    lines = [
        "| claim | source | metric | expected | measured (mean ± 95 % CI) | tolerance | seeds | cells | verdict "
        "| note |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in (claim_row(cv, notes) for cv in verdicts):
        row = [r.claim, r.source, f"{r.experiment}: {r.metric}", r.expected, r.measured, r.tolerance, r.seeds,
               r.cells, f"**{r.verdict}**", r.note]  # fmt: skip
        lines.append("| " + " | ".join(_cell(c) for c in row) + " |")
    return lines


def cell_table(verdicts: list[claims_mod.ClaimVerdict]) -> list[str]:
    """Every cell of the claims judged over more than one cell."""
    lines = ["| claim | cell | measured | seeds | verdict | note |", "|---|---|---|---|---|---|"]
    for cv in verdicts:
        if len(cv.cells) > 1:
            for c in cv.cells:
                row = [cv.claim, c.group, c.measured, c.seeds, c.verdict, c.note]
                lines.append("| " + " | ".join(_cell(x) for x in row) + " |")
    return lines if len(lines) > 2 else []


def choice_lines(doc: dict) -> list[str]:
    lines = []
    for c in doc.get("choices", []):
        line = f"- **{c['what']}**: {c['choice']}. {c['why']}"
        if "alternatives" in c:
            alts = "; ".join(f"`{c['id']}={a['label']}` ({a['why']}{post_hoc_note(a)})" for a in c["alternatives"])
            line += f" Alternatives run by the sensitivity stage: {alts}."
        if "axis" in c:
            line += (f" Claims are judged at `{c['axis']}={c['baseline']}`; the axis' other levels are the "
                     f"alternatives (`{c['id']}=<level>`), run with every matrix.")  # fmt: skip
        lines.append(line)
    if doc.get("interactions"):
        pairs = "; ".join(" x ".join(group) for group in doc["interactions"])
        lines.append(f"- Run together as well (every combination of their alternatives): {pairs}.")
    return lines


def post_hoc_note(alternative: dict) -> str:
    """The mark of an alternative declared after the verdicts were seen (schema: alternative.post_hoc)."""
    if "post_hoc" not in alternative:
        return ""
    return f"; declared post hoc, after the verdicts, because {alternative['post_hoc']}"


def load_metrics(doc: dict, results: Path, sub: str = "") -> dict[str, pd.DataFrame]:
    """experiment -> its metrics table (of the baseline, or of a reading's folder `sub`), for those that exist; the
    runs of it that failed, if any, in the table's attrs (claims.FAILED_RUNS), where the claims find them."""
    metrics = {}
    for exp in doc["experiments"]:
        path = results / doc["paper"] / exp / sub / "metrics.parquet"
        if path.exists():
            metrics[exp] = pd.read_parquet(path)
            failed = failed_runs(path.parent)
            if not failed.empty:
                metrics[exp].attrs[claims_mod.FAILED_RUNS] = failed
    return metrics


def failed_runs(folder: Path) -> pd.DataFrame:
    """An experiment's failed runs (aggregate: failed.parquet); none when the table is absent."""
    path = folder / "failed.parquet"
    return pd.read_parquet(path) if path.exists() else pd.DataFrame(columns=["run_key"])


def fed_by(doc: dict, experiment: str, run: pd.Series) -> tuple[list[str], list[str]]:
    """The claims whose cells (`where` and reading levels) hold a run of `experiment`, and the figures and tables
    drawn from the experiment (as data or as reference)."""
    frame = run.to_frame().T
    claims = [c["id"] for c in doc["claims"] if c["experiment"] == experiment
              and not claims_mod.claim_levels(c, frame, reading_axes(doc, experiment)).empty]  # fmt: skip
    artifacts = [a["id"] for kind in ("figures", "tables") for a in doc[kind]
                 if experiment in (a["experiment"], a.get("reference"))]  # fmt: skip
    return claims, artifacts


@dataclass(frozen=True)
class FailedRun:
    """A failed run of a paper's experiment (aggregate: failed.parquet), with what it would have fed."""

    experiment: str
    cell: str  # its axis labels, e.g. "queue=PI flows_n=4"
    seed: int
    run_key: str
    problem: str  # the first line of its message, after "failed: "
    claims: list[str]
    artifacts: list[str]  # the figures and tables drawn from its experiment
    rerun: str
    directory: str  # its <key>.failed/, which keeps ns's stderr


def failed_of(doc: dict, results: Path) -> list[FailedRun]:
    """The failed runs of a paper's experiments, each with its cell, what it would have fed and its rerun command."""
    found = []
    for exp in doc["experiments"]:
        axes = list(axes_of(doc["experiments"][exp]))
        for _, run in failed_runs(results / doc["paper"] / exp).iterrows():
            claims, artifacts = fed_by(doc, exp, run)
            found.append(FailedRun(
                experiment=exp, cell=" ".join(f"{a}={run[a]}" for a in axes if a in run), seed=run["seed"],
                run_key=run["run_key"], problem=run["message"].splitlines()[0].split(" failed: ", 1)[-1],
                claims=claims, artifacts=artifacts, rerun=run["rerun"], directory=run["directory"],
            ))  # fmt: skip
    return found


def failed_lines(failed: list[FailedRun]) -> list[str]:
    lines = []
    for f in failed:
        lines += [
            f"- `{f.experiment}` {f.cell} seed={f.seed}, run `{f.run_key}`: {f.problem}",
            f"  - would have fed: claims {', '.join(f.claims) or 'none'}; figures and tables "
            f"{', '.join(f.artifacts) or 'none'}",
            f"  - rerun: `{f.rerun}` (its directory `{f.directory}` keeps ns's stderr)",
        ]
    return lines


@dataclass(frozen=True)
class ExperimentSummary:
    """An experiment of a paper as both reports describe it."""

    name: str
    runs: int  # runs measured (in its metrics table)
    failed: int
    axes: tuple[str, ...]
    seeds: int  # seeds per cell under this profile
    duration: float
    warmup: float
    judged: str  # the reading levels its claims are judged at ("variant=as_text"), if any

    @property
    def details(self) -> str:
        return (f"axes: {', '.join(self.axes) or 'none'}; seeds per cell: {self.seeds}; {self.duration:g} s "
                f"simulated, {self.warmup:g} s warm-up excluded")  # fmt: skip


@dataclass
class PaperData:
    """What both reports say of one paper, computed once: its claims judged (in the order of its file), their notes
    filled from the runs, its experiments and its failed runs."""

    doc: dict
    verdicts: list[claims_mod.ClaimVerdict]
    notes: dict[str, str]  # claim -> its note, placeholders filled
    experiments: list[ExperimentSummary]
    failed: list[FailedRun]

    @property
    def by_class(self) -> dict[str, list[claims_mod.ClaimVerdict]]:
        by_class: dict[str, list[claims_mod.ClaimVerdict]] = {cls: [] for cls in CLASSES}
        for cv in self.verdicts:
            by_class[cv.cls].append(cv)
        return by_class

    @property
    def counts(self) -> dict[str, Counter]:
        """class -> its claims' verdict counts"""
        return {cls: Counter(cv.verdict for cv in cvs) for cls, cvs in self.by_class.items()}

    def drawn_without(self, artifact: dict) -> int:
        """The failed runs of the experiments a figure or table is drawn from (its own and its reference)."""
        lost = {e.name: e.failed for e in self.experiments}
        return sum(lost[e] for e in {artifact["experiment"], artifact.get("reference")} if e)


def paper_data(doc: dict, results: Path) -> PaperData:
    metrics = load_metrics(doc, results)
    experiments = [
        ExperimentSummary(
            name=name,
            runs=len(metrics[name]["run_key"].unique()) if name in metrics else 0,
            failed=len(failed_runs(results / doc["paper"] / name)),
            axes=tuple(axes_of(exp)),
            seeds=exp["seeds"]["count"],
            duration=exp["duration"],
            warmup=exp["warmup"],
            judged=", ".join(f"{a}={lvl}" for a, lvl in reading_axes(doc, name).items()),
        )
        for name, exp in doc["experiments"].items()
    ]
    fixed = {name: reading_axes(doc, name) for name in doc["experiments"]}
    notes = {
        c["id"]: fill_note(c.get("note", ""), c, metrics.get(c["experiment"]), fixed[c["experiment"]])
        for c in doc["claims"]
    }
    return PaperData(doc, claims_mod.judge_all(doc, metrics), notes, experiments, failed_of(doc, results))


FAILED_RUNS_TEXT = (
    "Left out of every table, figure and verdict: the claims they would have fed are incomplete, the figures drawn "
    "without them. The same Snakemake command reruns them."
)


def paper_markdown(data: PaperData) -> list[str]:
    doc, paper = data.doc, data.doc["paper"]
    by_class, counts = data.by_class, data.counts
    lines = [f"## {paper}: {doc.get('title', '')}".rstrip(": "), ""]
    if "source" in doc:
        lines.append(f"Paper: `shared/papers/{doc['source']}`.")
    for e in data.experiments:
        failed = f" and {e.failed} failed (see Failed runs)" if e.failed else ""
        judged = f"; claims judged at the chosen reading {e.judged}" if e.judged else ""
        lines.append(f"- `{e.name}`: {e.runs} runs{failed} ({e.details}){judged}")
    for cls, (title, meaning) in CLASSES.items():
        if by_class[cls]:
            n = len(by_class[cls])
            lines += ["", f"### {title} ({n} claim{'s' * (n != 1)}: {counts_text(counts[cls])})", "", meaning, ""]
            lines += claim_table(by_class[cls], data.notes)
    if not data.verdicts:
        lines += ["", "No claims."]
    detail = cell_table(data.verdicts)
    if detail:
        lines += ["", "### Cell detail", "", "Claims judged over more than one cell, each cell's verdict.", ""]
        lines += detail
    if data.failed:
        lines += ["", "### Failed runs", "", FAILED_RUNS_TEXT, ""] + failed_lines(data.failed)
    if doc.get("choices"):
        lines += ["", "### Choices where the paper is silent", ""] + choice_lines(doc)
    artifacts = [(a, "figures", ".png") for a in doc["figures"]] + [(a, "tables", ".md") for a in doc["tables"]]
    if artifacts:
        lines += ["", "### Figures and tables", ""]
        for artifact, kind, suffix in artifacts:
            rel = f"{paper}/{kind}/{artifact['id']}{suffix}"
            without = data.drawn_without(artifact)
            note = f" (drawn without {without} failed run(s): see Failed runs)" if without else ""
            lines.append(f"- [{artifact['id']}]({rel}): {artifact.get('caption', '')}{note}")
    lines.append("")
    return lines


def build_line(manifest: str | Path, profile: str) -> str:
    build = json.loads(Path(manifest).read_text())
    return (
        f"Profile: `{profile}`. ns-2 build `{build['key']}` (binary sha256 `{build['binary']['sha256'][:16]}…`, "
        f"patches: {', '.join(p['name'] for p in build['series']['patches'])})."
    )


def write_atomic(out: str | Path, text: str) -> None:
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp")
    tmp.write_text(text)
    tmp.replace(out)


VERDICT_LEGEND = (
    "Every measured value below is computed from this profile's runs; a published value appears only as a "
    "claim's expected value. Each claim gets one verdict. **pass**: within the claim's pass tolerance (a "
    "directional claim: on the claimed side, by the claimed factor, with 95 % intervals apart); **drift**: "
    "within the wider drift tolerance (a directional claim: the right side by mean only, or a level with too "
    "few values to form an interval); **fail**: beyond it (the other side); **incomplete**: a run it needs "
    "failed (never a pass; the failed runs are listed with their rerun commands); **missing**: no run measured it. "
    "A claim checked over several cells (e.g. per number of flows) combines them by its rule: all (the worst "
    "cell), any (the best), each (one claim per cell), min/max over an axis. A fail is a result, reported with "
    "what could explain it. Claims are judged under the readings chosen where the paper is silent; "
    "SENSITIVITY.md (target `sensitivity-all`) judges them under every declared alternative."
)


def totals(papers: list[PaperData]) -> dict[str, Counter]:
    """class -> verdict counts over every paper"""
    out = {cls: Counter() for cls in CLASSES}
    for data in papers:
        for cls, counts in data.counts.items():
            out[cls] += counts
    return out


def headline(counts: dict[str, Counter]) -> str:
    """The reproduction claims' verdict counts over every paper, then those of the other classes that have claims."""
    return (
        f"Reproduction claims, all papers: {counts_text(counts['reproduction'])}. "
        + "".join(
            f"{CLASSES[c][0]}: {counts_text(counts[c])}. " for c in CLASSES if c != "reproduction" and counts[c]
        ).rstrip()
    )


def write_report(docs: list[dict], results: str | Path, manifest: str | Path, out: str | Path, profile: str) -> None:
    papers = [paper_data(doc, Path(results)) for doc in docs]
    head = ["# Reproduction report", "", build_line(manifest, profile), "", VERDICT_LEGEND, "",
            headline(totals(papers)), ""]  # fmt: skip
    write_atomic(out, "\n".join(head + [line for data in papers for line in paper_markdown(data)]))
