"""results/REPORT.md: per paper, every claim's measured vs expected value and verdict,
the choices made where the paper is silent, and where the figures and tables are.

Published numbers appear here only as the claims' expected values, beside what the
runs measured. The report carries no timestamp: same results, same bytes.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pandas as pd

from experiments import claims as claims_mod
from experiments.config import axes_of


def _cell(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def metric_cell(verdict: claims_mod.Verdict) -> str:
    """The metric, with the scope beside it unless it is `all`: `core_drops_per_s [group:http]`."""
    return verdict.metric if verdict.scope == "all" else f"{verdict.metric} [{verdict.scope}]"


def verdict_table(verdicts: list[claims_mod.Verdict], notes: dict[str, str]) -> list[str]:
    lines = [
        "| claim | source | runs | metric | expected | measured (mean ± 95 % CI) | tolerance | seeds | verdict "
        "| note |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for v in verdicts:
        note = "; ".join(n for n in (v.note, notes.get(v.claim, "")) if n)
        cells = [v.claim, v.source, f"{v.experiment}: {v.group}", metric_cell(v), v.expected, v.measured,
                 v.tolerance, v.seeds, f"**{v.verdict}**", note]  # fmt: skip
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return lines


def paper_section(doc: dict, results: Path) -> tuple[list[str], Counter]:
    paper = doc["paper"]
    metrics = {}
    for exp in doc["experiments"]:
        path = results / paper / exp / "metrics.parquet"
        if path.exists():
            metrics[exp] = pd.read_parquet(path)
    verdicts = claims_mod.evaluate_all(doc, metrics)
    counts = Counter(v.verdict for v in verdicts)
    lines = [f"## {paper}: {doc.get('title', '')}".rstrip(": "), ""]
    if "source" in doc:
        lines.append(f"Paper: `shared/papers/{doc['source']}`.")
    for name, exp in doc["experiments"].items():
        runs = len(metrics[name]["run_key"].unique()) if name in metrics else 0
        axes = ", ".join(axes_of(exp)) or "none"
        lines.append(
            f"- `{name}`: {runs} runs (axes: {axes}; seeds per cell: {exp['seeds']['count']}; "
            f"{exp['duration']:g} s simulated, {exp['warmup']:g} s warm-up excluded)"
        )
    summary = ", ".join(f"{counts[k]} {k}" for k in ("pass", "drift", "fail", "missing") if counts[k])
    lines += ["", f"### Claims ({summary or 'none'})", ""]
    notes = {c["id"]: c.get("note", "") for c in doc["claims"]}
    lines += verdict_table(verdicts, notes) if verdicts else ["No claims."]
    if doc.get("choices"):
        lines += ["", "### Choices where the paper is silent", ""]
        lines += [f"- **{c['what']}**: {c['choice']}. {c['why']}" for c in doc["choices"]]
    artifacts = [(a, "figures", ".png") for a in doc["figures"]] + [(a, "tables", ".md") for a in doc["tables"]]
    if artifacts:
        lines += ["", "### Figures and tables", ""]
        for artifact, kind, suffix in artifacts:
            rel = f"{paper}/{kind}/{artifact['id']}{suffix}"
            lines.append(f"- [{artifact['id']}]({rel}): {artifact.get('caption', '')}")
    lines.append("")
    return lines, counts


def write_report(docs: list[dict], results: str | Path, manifest: str | Path, out: str | Path, profile: str) -> None:
    results = Path(results)
    build = json.loads(Path(manifest).read_text())
    body, totals = [], Counter()
    for doc in docs:
        lines, counts = paper_section(doc, results)
        body += lines
        totals += counts
    head = [
        "# Reproduction report",
        "",
        f"Profile: `{profile}`. ns-2 build `{build['key']}` (binary sha256 `{build['binary']['sha256'][:16]}…`, "
        f"patches: {', '.join(p['name'] for p in build['series']['patches'])}).",
        "",
        "Every measured value below is computed from this profile's runs; a published value appears only as a "
        "claim's expected value. **pass**: within the claim's pass tolerance (a directional claim: on the claimed "
        "side, by the claimed factor, with 95 % intervals apart); **drift**: within the wider drift tolerance (a "
        "directional claim: the right side by mean only); **fail**: beyond it (the other side); **missing**: no run "
        "measured it. A fail is a result, reported with what could explain it. A claim is checked once for every "
        "combination of the axes it leaves free (e.g. per variant and per number of flows).",
        "",
        "Totals: "
        + (", ".join(f"{totals[k]} {k}" for k in ("pass", "drift", "fail", "missing") if totals[k]) or "none"),
        "",
    ]
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp")
    tmp.write_text("\n".join(head + body))
    tmp.replace(out)
