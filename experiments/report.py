"""results/REPORT.md: per paper, every claim's one verdict, by class, with measured vs
expected value; the per-cell detail; the choices made where the paper is silent with the
alternatives declared for them; and where the figures and tables are.

Published numbers appear here only as the claims' expected values, beside what the
runs measured. A note holds a hypothesis; a measured value in it is a placeholder
filled here from the runs ({{metric ...}}). The report carries no timestamp: same
results, same bytes.
"""

from __future__ import annotations

import json
from collections import Counter
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


def claim_table(verdicts: list[claims_mod.ClaimVerdict], notes: dict[str, str]) -> list[str]:
    lines = [
        "| claim | source | metric | expected | measured (mean ± 95 % CI) | tolerance | seeds | cells | verdict "
        "| note |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for cv in verdicts:
        d = cv.deciding
        note = "; ".join(n for n in (d.note, notes.get(cv.claim, "")) if n)
        measured = d.measured if len(cv.cells) == 1 else f"{d.group}: {d.measured}"
        cells = f"{cv.combine}: {cv.cell_counts}" if len(cv.cells) > 1 else d.group
        row = [cv.claim, d.source, f"{d.experiment}: {metric_cell(d)}", d.expected, measured, d.tolerance, d.seeds,
               cells, f"**{cv.verdict}**", note]  # fmt: skip
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


def failed_lines(doc: dict, results: Path) -> list[str]:
    """The failed runs of a paper's experiments, each with its cell, what it would have fed and its rerun command."""
    lines = []
    for exp in doc["experiments"]:
        failed = failed_runs(results / doc["paper"] / exp)
        axes = list(axes_of(doc["experiments"][exp]))
        for _, run in failed.iterrows():
            claims, artifacts = fed_by(doc, exp, run)
            cell = " ".join(f"{a}={run[a]}" for a in axes if a in run)
            problem = run["message"].splitlines()[0].split(" failed: ", 1)[-1]
            lines += [
                f"- `{exp}` {cell} seed={run['seed']}, run `{run['run_key']}`: {problem}",
                f"  - would have fed: claims {', '.join(claims) or 'none'}; figures and tables "
                f"{', '.join(artifacts) or 'none'}",
                f"  - rerun: `{run['rerun']}` (its directory `{run['directory']}` keeps ns's stderr)",
            ]
    return lines


def paper_section(doc: dict, results: Path) -> tuple[list[str], dict[str, Counter]]:
    paper = doc["paper"]
    metrics = load_metrics(doc, results)
    verdicts = claims_mod.judge_all(doc, metrics)
    by_class: dict[str, list[claims_mod.ClaimVerdict]] = {cls: [] for cls in CLASSES}
    for cv in verdicts:
        by_class[cv.cls].append(cv)
    counts = {cls: Counter(cv.verdict for cv in cvs) for cls, cvs in by_class.items()}
    lines = [f"## {paper}: {doc.get('title', '')}".rstrip(": "), ""]
    if "source" in doc:
        lines.append(f"Paper: `shared/papers/{doc['source']}`.")
    lost = {name: len(failed_runs(results / paper / name)) for name in doc["experiments"]}
    for name, exp in doc["experiments"].items():
        runs = len(metrics[name]["run_key"].unique()) if name in metrics else 0
        axes = ", ".join(axes_of(exp)) or "none"
        judged = ", ".join(f"{a}={lvl}" for a, lvl in reading_axes(doc, name).items())
        failed = f" and {lost[name]} failed (see Failed runs)" if lost[name] else ""
        lines.append(
            f"- `{name}`: {runs} runs{failed} (axes: {axes}; seeds per cell: {exp['seeds']['count']}; "
            f"{exp['duration']:g} s simulated, {exp['warmup']:g} s warm-up excluded)"
            + (f"; claims judged at the chosen reading {judged}" if judged else "")
        )
    claims_by_id = {c["id"]: c for c in doc["claims"]}
    fixed = {name: reading_axes(doc, name) for name in doc["experiments"]}
    notes = {
        cid: fill_note(c.get("note", ""), c, metrics.get(c["experiment"]), fixed[c["experiment"]])
        for cid, c in claims_by_id.items()
    }
    for cls, (title, meaning) in CLASSES.items():
        if by_class[cls]:
            n = len(by_class[cls])
            lines += ["", f"### {title} ({n} claim{'s' * (n != 1)}: {counts_text(counts[cls])})", "", meaning, ""]
            lines += claim_table(by_class[cls], notes)
    if not verdicts:
        lines += ["", "No claims."]
    detail = cell_table(verdicts)
    if detail:
        lines += ["", "### Cell detail", "", "Claims judged over more than one cell, each cell's verdict.", ""]
        lines += detail
    failed = failed_lines(doc, results)
    if failed:
        lines += [
            "",
            "### Failed runs",
            "",
            "Left out of every table, figure and verdict: the claims they would have "
            "fed are incomplete, the figures drawn without them. The same Snakemake command reruns them.",
            "",
        ]
        lines += failed
    if doc.get("choices"):
        lines += ["", "### Choices where the paper is silent", ""] + choice_lines(doc)
    artifacts = [(a, "figures", ".png") for a in doc["figures"]] + [(a, "tables", ".md") for a in doc["tables"]]
    if artifacts:
        lines += ["", "### Figures and tables", ""]
        for artifact, kind, suffix in artifacts:
            rel = f"{paper}/{kind}/{artifact['id']}{suffix}"
            without = sum(lost[e] for e in {artifact["experiment"], artifact.get("reference")} if e)
            note = f" (drawn without {without} failed run(s): see Failed runs)" if without else ""
            lines.append(f"- [{artifact['id']}]({rel}): {artifact.get('caption', '')}{note}")
    lines.append("")
    return lines, counts


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


def write_report(docs: list[dict], results: str | Path, manifest: str | Path, out: str | Path, profile: str) -> None:
    results = Path(results)
    body, totals = [], {cls: Counter() for cls in CLASSES}
    for doc in docs:
        lines, counts = paper_section(doc, results)
        body += lines
        for cls in CLASSES:
            totals[cls] += counts[cls]
    head = [
        "# Reproduction report",
        "",
        build_line(manifest, profile),
        "",
        "Every measured value below is computed from this profile's runs; a published value appears only as a "
        "claim's expected value. Each claim gets one verdict. **pass**: within the claim's pass tolerance (a "
        "directional claim: on the claimed side, by the claimed factor, with 95 % intervals apart); **drift**: "
        "within the wider drift tolerance (a directional claim: the right side by mean only, or a level with too "
        "few values to form an interval); **fail**: beyond it (the other side); **incomplete**: a run it needs "
        "failed (never a pass; the failed runs are listed with their rerun commands); **missing**: no run measured it. "
        "A claim checked over several cells (e.g. per number of flows) combines them by its rule: all (the worst "
        "cell), any (the best), each (one claim per cell), min/max over an axis. A fail is a result, reported with "
        "what could explain it. Claims are judged under the readings chosen where the paper is silent; "
        "SENSITIVITY.md (target `sensitivity-all`) judges them under every declared alternative.",
        "",
        f"Reproduction claims, all papers: {counts_text(totals['reproduction'])}. "
        + "".join(
            f"{CLASSES[c][0]}: {counts_text(totals[c])}. " for c in CLASSES if c != "reproduction" and totals[c]
        ).rstrip(),
        "",
    ]
    write_atomic(out, "\n".join(head + body))
