"""results/report/: the reproduction report as static HTML pages, for a reviewer to open in a browser.

Rendered from the same computation as REPORT.md (experiments.report.model.paper_data: each paper's claims judged once
per rendering) with the Jinja2 templates in experiments/report/templates/. The pages hold no script, no external
resource and relative links only, so they open from the file system; they carry no timestamp, so the same results
give the same bytes. Paths below are relative to the results folder:

  report/index.html                      per paper: its claims' verdict counts by class, a one-line summary
  report/papers/<paper>.html             its figures and tables beside their captions, the claim table (and the
                                         cells of claims judged over several), failed runs, the sensitivity
                                         table, the choices made where the paper is silent
  report/runs/<paper>/<experiment>.html  the runs of one experiment, each linked to its run directory's
                                         params.json, meta.json and manifest.json, and its failed runs linked
                                         to their stderr.txt and rerun.sh

Provenance: a figure or table is drawn from its experiment's runs (runs.parquet) and, where its entry names a
`reference` experiment, from that one's too; it links to those experiments' run pages. The run lists are pages of
their own because an experiment can have thousands of runs: inlined, they would bury the paper page. Every page's
footer names the profile, the seeds per cell of its experiments, the ns-2 binary's sha256, the patch series' hash
and build key (build/ns2/manifest.json), the Tcl library's hash (the one in every run key) and the project's git
commit ("unknown" outside a git checkout, e.g. in the container).

Beside each figure and table are the claims that check it, with their verdicts: those that name it in their
`figures`, and those judged on its experiment whose `source` cites the number its caption starts with ("Fig. 5.1.",
"Table 2."; e.g. a source "§5.2, Fig. 8"); their sources give the section. A paper page opens with the paper's
headlines, each with its specification curve (figures/spec_curves.py), then the figures and tables, then the
experiments and the full claim table.

The sensitivity table: results/sensitivity.parquet is made by the target `sensitivity-all` (every alternative
reading's runs: hours), never by `reproduce-all`, which must not force it. So the rule (workflows/report.smk)
takes it as an input only when `sensitivity-all` is among Snakemake's targets (workflow.dag_settings.targets,
read by an input function: it is set when the DAG is built, not yet when the Snakefile is parsed), and the stamp
`sensitivity-all` lists this report among its inputs: that target renders the report with the table, and without
it the paper page says that the table comes with `snakemake sensitivity-all`. The set of inputs is a rerun
trigger, so each target gets its own report, whatever an earlier invocation left. It is a local rule: a cluster
job's Snakemake is not told the targets, and would render the report without the table.

"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import pandas as pd

from experiments.common import markdown
from experiments.common.files import write_atomic
from experiments.common.processes import in_processes
from experiments.config.axes import axes_of, label_text
from experiments.report.markdown import choice_lines, null_untested
from experiments.report.model import (
    CLASSES,
    FAILED_RUNS_TEXT,
    MODEL_CHECKS_TEXT,
    VERDICT_LEGEND,
    VERDICTS,
    FailedRun,
    PaperData,
    claim_row,
    counts_text,
    headline,
    mechanism_text,
    paper_data,
    readings_text,
    row_key,
    seeding_total,
    totals,
)
from experiments.store import layout
from experiments.store.layout import INDEX_PAGE as INDEX
from experiments.store.layout import headline_curve, paper_page, runs_page
from experiments.verdicts.headlines import HeadlineVerdict
from experiments.verdicts.seeding import SeedRounds
from experiments.verdicts.sensitivity import by_experiment

TEMPLATES = Path(__file__).resolve().parent / "templates"


RUN_FILES = ("params.json", "meta.json", "manifest.json")  # what each run directory keeps of its provenance


FAILED_FILES = ("stderr.txt", "rerun.sh")  # what a failed run's <key>.failed/ keeps for a diagnosis


def pages(docs: list[dict]) -> list[str]:
    """Every page of the report, relative to the results folder: the index first."""
    return (
        [INDEX]
        + [paper_page(d["paper"]) for d in docs]
        + [runs_page(d["paper"], exp) for d in docs for exp in d["experiments"]]
    )


def curves(docs: list[dict]) -> list[str]:
    """Every headline's specification curve, relative to the results folder."""
    return [headline_curve(d["paper"], h["id"]) for d in docs for h in d.get("headlines", [])]


def link(page: str, target: str) -> str:
    """The relative link from a page to a file, both given relative to the results folder."""
    return posixpath.relpath(target, posixpath.dirname(page))


@dataclass(frozen=True)
class Provenance:
    """What every page's footer names."""

    profile: str
    binary_sha256: str
    series_sha256: str
    build_key: str
    tcl_sha256: str
    commit: str

    @classmethod
    def of(cls, manifest: str | Path, profile: str, tcl_sha256: str, commit: str) -> Provenance:
        build = json.loads(Path(manifest).read_text())
        return cls(profile, build["binary"]["sha256"], build["series"]["sha256"], build["key"], tcl_sha256, commit)


_INLINE = re.compile(r"`([^`]+)`|\*\*(.+?)\*\*")


def inline(text) -> str:
    """Escaped text with `code` and **bold** (the Markdown the reports' sentences use) as HTML."""
    from markupsafe import Markup, escape

    text, out, pos = str(text), [], 0
    for found in _INLINE.finditer(text):
        out.append(escape(text[pos : found.start()]))
        code, bold = found.groups()
        out.append(
            Markup("<code>{}</code>").format(code)
            if code is not None
            else Markup("<strong>{}</strong>").format(inline(bold))
        )
        pos = found.end()
    out.append(escape(text[pos:]))
    return Markup("").join(out)


_NUMBERED = re.compile(r"(?:Appendix\s+)?(Figs?\.|Figures?|Tables?)\s*(\d+(?:\.\d+)*)")


def cited_by(artifact: dict, claims: list[dict]) -> list[dict]:
    """The claims that check an artifact, in the file's order: those naming it in their `figures`, and those judged
    on its experiments whose source cites the number its caption starts with."""
    found = _NUMBERED.match(artifact.get("caption", ""))
    cites = None
    if found:
        kind = r"Tables?" if found[1].startswith("Table") else r"(?:Figs?\.|Figures?)"
        cites = re.compile(rf"\b{kind}\s*{re.escape(found[2])}(?![\d]|\.\d)")
    experiments = {artifact["experiment"], artifact.get("reference")}
    return [
        c
        for c in claims
        if artifact["id"] in c.get("figures", ())
        or (cites is not None and c["experiment"] in experiments and cites.search(c["source"]))
    ]


@dataclass
class Artifact:
    entry: dict
    kind: str  # figures or tables
    image: str  # a figure's link
    files: list[tuple[str, str]]  # (name, link) of its output files
    blocks: list[markdown.Block]  # a table's Markdown
    cited_by: list[dict]
    drawn_from: list[tuple[str, int, str]]  # (experiment, runs, run page link)
    without: int  # failed runs of those experiments


def artifacts(data: PaperData, results: Path, page: str) -> list[Artifact]:
    doc, paper = data.doc, data.doc["paper"]
    runs = {e.name: e.runs for e in data.experiments}
    out = []
    for kind in ("figures", "tables"):
        for entry in doc[kind]:
            stem = layout.artifact("", paper, kind, entry["id"]).as_posix()  # relative to the results folder
            suffixes = (".png",) if kind == "figures" else (".md", ".csv")
            sources = [entry["experiment"], *([entry["reference"]] if "reference" in entry else [])]
            out.append(
                Artifact(
                    entry=entry,
                    kind=kind,
                    image=link(page, stem + ".png") if kind == "figures" else "",
                    files=[(Path(stem + s).name, link(page, stem + s)) for s in suffixes],
                    blocks=markdown.blocks((results / (stem + ".md")).read_text()) if kind == "tables" else [],
                    cited_by=cited_by(entry, doc["claims"]),
                    drawn_from=[(e, runs[e], link(page, runs_page(paper, e))) for e in sources],
                    without=data.drawn_without(entry),
                )
            )
    return out


def headline_rows(data: PaperData, page: str) -> list[dict]:
    """What the pages show of each headline: its words, verdict, readings and claims, and its curve's link."""
    return [
        {
            "id": hv.id,
            "quote": hv.headline["quote"],
            "source": hv.headline["source"],
            "combine": hv.headline.get("combine", "all"),
            "why": hv.headline["why"],
            "verdict": hv.verdict,
            "readings": readings_text(hv),
            "mechanism": mechanism_text(hv),
            "claims": [(cv.claim, row_key(cv), cv.verdict) for cv in hv.claims],
            "curve": link(page, headline_curve(data.doc["paper"], hv.id)),
        }
        for hv in data.headlines
    ]


def run_file(page: str, folder: str, name: str) -> str:
    """The link from a page to a file of a run directory (<results>/runs/<folder>/<name>)."""
    return link(page, (layout.runs_dir("") / folder / name).as_posix())


def run_rows(
    results: Path, paper: str, experiment: str, axes: list[str], page: str, seed_rounds: list[int] = ()
) -> list[dict]:
    """An experiment's runs (runs.parquet, then those of the seeding rounds that added some), each with its labels
    and links to its run directory's files."""
    tables = [layout.experiment_table(results, paper, experiment, "runs", seed_round=r) for r in [0, *seed_rounds]]
    table = pd.concat([pd.read_parquet(t) for t in tables], ignore_index=True)
    return [
        {
            "labels": [label_text(run[a]) for a in axes],
            "seed": run["seed"],
            "key": run["run_key"],
            "files": [(name, run_file(page, run["run_key"], name)) for name in RUN_FILES],
        }
        for _, run in table.iterrows()
    ]


def failed_links(run: FailedRun, page: str) -> list[tuple[str, str]]:
    return [(name, run_file(page, f"{run.run_key}.failed", name)) for name in FAILED_FILES]


def claim_verdicts(data: PaperData) -> dict[str, list[str]]:
    """claim -> its verdicts (one per cell for combine: each)"""
    out: dict[str, list[str]] = {}
    for cv in data.verdicts:
        out.setdefault(cv.claim, []).append(cv.verdict)
    return out


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'s' * (n != 1)}"


def summary(data: PaperData) -> str:
    """One line: the claims (one per cell for combine: each, as REPORT.md counts them), the runs, the figures and
    tables."""
    doc, failed = data.doc, sum(e.failed for e in data.experiments)
    return (
        f"{_count(len(data.verdicts), 'claim')}, of which reproduction: "
        f"{counts_text(data.counts['reproduction'])}; {_count(len(data.experiments), 'experiment')}, "
        f"{_count(sum(e.runs for e in data.experiments), 'run')} measured"
        + (f", {failed} failed" if failed else "")
        + f"; {_count(len(doc['figures']), 'figure')}, {_count(len(doc['tables']), 'table')}."
    )


def breakable(name) -> str:
    """An identifier (claim id, metric name) escaped, with a line-break opportunity after each underscore, so
    that a narrow column breaks it between its words rather than anywhere."""
    from markupsafe import Markup, escape

    return Markup("_<wbr>").join(escape(part) for part in str(name).split("_"))


def environment():
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["md"] = inline
    env.filters["breakable"] = breakable
    return env


def _draw(draw_curve: Callable, curve: tuple) -> Path:
    return draw_curve(*curve)


def write(
    docs: list[dict],
    results: str | Path,
    manifest: str | Path,
    profile: str,
    tcl_sha256: str,
    commit: str,
    sensitivity: str | Path | None = None,
    rounds: SeedRounds | None = None,
    draw_curve: Callable[[HeadlineVerdict, pd.DataFrame | None, dict, Path], Path] | None = None,
    workers: int = 1,
) -> list[Path]:
    """Every page of the report, under <results>/report/; `sensitivity`: the sensitivity table (sensitivity.parquet)
    when the targets made it, else None; `rounds`: the seeding rounds run; `draw_curve(headline verdict, the paper's
    rows of the table or None, its file, out)`: draws a headline's specification curve (figures.spec_curves.draw,
    which this stage cannot import; picklable, as `workers` > 1 draws that many at a time, each in a process of its
    own). Returns the pages and curves written."""
    results = Path(results)
    env = environment()
    provenance = Provenance.of(manifest, profile, tcl_sha256, commit)
    table = pd.read_parquet(sensitivity) if sensitivity else None
    papers = [paper_data(doc, results, table, rounds) for doc in docs]
    common = {
        "provenance": provenance,
        "sensitivity": table is not None,
        "classes": CLASSES,
        "verdicts": VERDICTS,
        "counts_text": counts_text,
        "link": link,
    }
    rendered = {
        INDEX: env.get_template("index.html.j2").render(
            **common,
            page=INDEX,
            papers=[(d, summary(d), paper_page(d.doc["paper"]), headline_rows(d, INDEX)) for d in papers],
            headline=headline(totals(papers)),
            seeding=seeding_total(papers),
            legend=VERDICT_LEGEND,
            replications=[(d.doc["paper"], e) for d in papers for e in d.experiments],
        )
    }
    for data in papers:
        paper = data.doc["paper"]
        page = paper_page(paper)
        added = rounds.tables(paper) if rounds else {}  # experiment -> the seeding rounds that added runs of it
        readings = None
        if table is not None:
            readings = by_experiment(table[table["paper"] == paper])
        rendered[page] = env.get_template("paper.html.j2").render(
            **common,
            page=page,
            data=data,
            paper=paper,
            readings=readings,
            headlines=headline_rows(data, page),
            several=[cv for cv in data.verdicts if len(cv.cells) > 1],
            claim_verdicts=claim_verdicts(data),
            rows=[claim_row(cv, data.notes, data.seeding) for cls in CLASSES for cv in data.by_class[cls]],
            artifacts=artifacts(data, results, page),
            untested=null_untested(data),
            choices=choice_lines(data.doc),
            runs_pages={e.name: link(page, runs_page(paper, e.name)) for e in data.experiments},
            failed=[(f, failed_links(f, page)) for f in data.failed],
            failed_text=FAILED_RUNS_TEXT,
            model_checks=data.model_checks,
            model_checks_text=MODEL_CHECKS_TEXT,
            replications=[(paper, e) for e in data.experiments],
        )
        for e in data.experiments:
            page = runs_page(paper, e.name)
            axes = list(axes_of(data.doc["experiments"][e.name]))
            rendered[page] = env.get_template("runs.html.j2").render(
                **common,
                page=page,
                paper=paper,
                experiment=e,
                axes=axes,
                runs=run_rows(results, paper, e.name, axes, page, added.get(e.name, [])),
                failed=[(f, failed_links(f, page)) for f in data.failed if f.experiment == e.name],
                drawn=[
                    a["id"]
                    for kind in ("figures", "tables")
                    for a in data.doc[kind]
                    if e.name in (a["experiment"], a.get("reference"))
                ],
                claims=[c["id"] for c in data.doc["claims"] if c["experiment"] == e.name],
                paper_link=link(page, paper_page(paper)),
                replications=[(paper, e)],
            )
    curves = []
    for data in papers if draw_curve else []:
        rows = table[table["paper"] == data.doc["paper"]] if table is not None else None
        for hv in data.headlines:
            curves.append((hv, rows, data.doc, results / headline_curve(data.doc["paper"], hv.id)))
    written = in_processes(partial(_draw, draw_curve), curves, workers)
    for page, text in rendered.items():
        write_atomic(results / page, text)
        written.append(results / page)
    return written
