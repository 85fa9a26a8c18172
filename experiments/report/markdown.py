"""results/REPORT.md: per paper, every claim's one verdict, by class, with measured vs
expected value; the per-cell detail; the choices made where the paper is silent with the
alternatives declared for them; and where the figures and tables are.

Published numbers appear here only as the claims' expected values, beside what the
runs measured. A note holds a hypothesis; a measured value in it is a placeholder
filled here from the runs ({{metric ...}}). The report carries no timestamp: same
results, same bytes.

What the section of a paper says is computed once (`paper_data`: its claims judged, their notes filled, its failed
runs traced to what they would have fed) and rendered twice: as Markdown here, as HTML pages by
experiments.report.html.

"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pandas as pd

from experiments.common import markdown
from experiments.common.files import write_atomic
from experiments.report.model import (
    CLASSES,
    FAILED_RUNS_TEXT,
    HEADLINES_TEXT,
    MODEL_CHECKS_TEXT,
    VERDICT_LEGEND,
    FailedRun,
    PaperData,
    build_line,
    claim_row,
    claims_text,
    counts_text,
    headline,
    mechanism_text,
    paper_data,
    post_hoc_note,
    readings_text,
    seeding_total,
    totals,
)
from experiments.store import layout
from experiments.verdicts.claims import ClaimVerdict
from experiments.verdicts.seeding import SeedRounds


def claim_table(verdicts: list[ClaimVerdict], notes: dict[str, str], seeding: dict | None = None) -> list[str]:
    headers = [
        "claim",
        "source",
        "metric",
        "expected",
        "measured (mean ± 95 % CI)",
        "tolerance",
        "seeds",
        "cells",
        "verdict",
        "note",
    ]
    rows = [
        [
            r.claim,
            r.source,
            f"{r.experiment}: {r.metric}",
            r.expected,
            r.measured,
            r.tolerance,
            r.seeds,
            r.cells,
            f"**{r.verdict}**",
            r.note,
        ]
        for r in (claim_row(cv, notes, seeding) for cv in verdicts)
    ]
    return markdown.table(headers, rows)


def cell_table(verdicts: list[ClaimVerdict]) -> list[str]:
    """Every cell of the claims judged over more than one cell."""
    rows = [
        [cv.claim, c.group, c.measured, c.seeds, c.verdict, c.note]
        for cv in verdicts
        if len(cv.cells) > 1
        for c in cv.cells
    ]
    return markdown.table(["claim", "cell", "measured", "seeds", "verdict", "note"], rows) if rows else []


def choice_lines(doc: dict) -> list[str]:
    lines = []
    for c in doc.get("choices", []):
        line = f"- **{c['what']}**: {c['choice']}. {c['why']}"
        if "alternatives" in c:
            alts = "; ".join(f"`{c['id']}={a['label']}` ({a['why']}{post_hoc_note(a)})" for a in c["alternatives"])
            line += f" Alternatives run by the sensitivity stage: {alts}."
        if "axis" in c:
            line += (
                f" Claims are judged at `{c['axis']}={c['baseline']}`; the axis' other levels are the "
                f"alternatives (`{c['id']}=<level>`), run with every matrix."
            )
        lines.append(line)
    if doc.get("interactions"):
        pairs = "; ".join(" x ".join(group) for group in doc["interactions"])
        lines.append(f"- Run together as well (every combination of their alternatives): {pairs}.")
    return lines


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
    if data.headlines:
        lines += ["", "### Headlines", "", HEADLINES_TEXT, ""] + headline_table(data)
    untested = null_untested(data)
    if untested:
        lines += ["", untested]
    if data.seeding_text:
        lines += ["", data.seeding_text]
    for cls, (title, meaning) in CLASSES.items():
        if by_class[cls]:
            n = len(by_class[cls])
            lines += ["", f"### {title} ({n} claim{'s' * (n != 1)}: {counts_text(counts[cls])})", "", meaning, ""]
            lines += claim_table(by_class[cls], data.notes, data.seeding)
    if not data.verdicts:
        lines += ["", "No claims."]
    if data.model_checks:
        lines += ["", f"### Model checks ({counts_text(Counter(m.verdict for m in data.model_checks))})", ""]
        lines += [MODEL_CHECKS_TEXT, ""] + model_check_table(data.model_checks)
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
            rel = layout.artifact("", paper, kind, artifact["id"], suffix).as_posix()  # relative to REPORT.md
            without = data.drawn_without(artifact)
            note = f" (drawn without {without} failed run(s): see Failed runs)" if without else ""
            lines.append(f"- [{artifact['id']}]({rel}): {artifact.get('caption', '')}{note}")
    lines.append("")
    return lines


def model_check_table(checks: list) -> list[str]:
    rows = [
        (
            m.check,
            m.cls,
            m.source,
            f"`{m.quantity}`",
            f"{m.expected:.6g}",
            f"{m.computed:.6g}",
            m.tolerance,
            f"**{m.verdict}**",
            m.note,
        )
        for m in checks
    ]
    head = ["check", "class", "source", "quantity", "paper", "model", "tolerance", "verdict", "note"]
    return markdown.table(head, rows)


def headline_table(data: PaperData) -> list[str]:
    """One row per headline: the paper's words, the verdict, what the readings and the null readings say, and the
    claims it is judged from."""
    headers = ["headline", "the paper's words", "verdict", "under the readings tried", "tells the mechanism apart"]
    headers += ["claims", "curve"]
    rows = [
        [
            hv.id,
            f'"{hv.headline["quote"]}" ({hv.headline["source"]}; {hv.headline.get("combine", "all")} of its claims)',
            f"**{hv.verdict}**",
            readings_text(hv),
            mechanism_text(hv),
            claims_text(hv),
            f"[{hv.id}.png]({layout.headline_curve(data.doc['paper'], hv.id)})",  # drawn with the HTML report
        ]
        for hv in data.headlines
    ]
    return markdown.table(headers, rows)


def null_untested(data: PaperData) -> str:
    """A paper with null readings whose verdicts under them are not in this report: what that means."""
    if not data.null_choices or data.null_tested:
        return ""
    names = ", ".join(f"`{c}`" for c in data.null_choices)
    return (
        f"Its null readings ({names}: the mechanism switched off) run with `snakemake sensitivity-all`; until then "
        "no reproduction claim here is tested for telling the mechanism apart from its absence."
    )


def write_report(
    docs: list[dict],
    results: str | Path,
    manifest: str | Path,
    out: str | Path,
    profile: str,
    sensitivity: str | Path | None = None,
    rounds: SeedRounds | None = None,
) -> None:
    """REPORT.md; `sensitivity`: the sensitivity table when the targets made it (its null readings set the
    non-discriminating claims apart), else None; `rounds`: the seeding rounds run."""
    table = pd.read_parquet(sensitivity) if sensitivity else None
    papers = [paper_data(doc, Path(results), table, rounds) for doc in docs]
    head = [
        "# Reproduction report",
        "",
        build_line(manifest, profile),
        "",
        VERDICT_LEGEND,
        "",
        headline(totals(papers)),
        "",
    ]
    if seeding_total(papers):
        head += [seeding_total(papers), ""]
    write_atomic(out, "\n".join(head + [line for data in papers for line in paper_markdown(data)]))
