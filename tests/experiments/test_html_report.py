"""The HTML report without a browser, on a results folder written here (no ns-2 run): its claim rows are REPORT.md's,
a failed run is listed with its files, every link resolves, the sensitivity table is there only when given, and the
same results give the same bytes wherever the folder is."""

from __future__ import annotations

import json
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path

import pandas as pd
import pytest
from PIL import Image

from experiments.common import markdown
from experiments.config.load import load
from experiments.report import html as html_report
from experiments.report.markdown import write_report
from experiments.report.model import VERDICTS
from experiments.store.tables import load_measured, write_parquet
from experiments.verdicts import sensitivity as sensitivity_mod
from experiments.workflow.targets import wants_sensitivity
from figures import spec_curves

FILE = """
paper: demo
title: A demo paper
queues:
  RED: {class: Queue/RED, knobs: {thresh_: 5, maxthresh_: 15}}
  PI: {class: Queue/PI, knobs: {qref_: 10}}
choices:
  - {id: weight, what: "RED's weight", choice: "0.002", why: "unstated", path: queues.RED.knobs.q_weight_,
     alternatives: [{label: fast, value: 0.02, why: "a faster average"}]}
experiments:
  flows:
    scenario:
      topology: {kind: dumbbell, core_link: {bandwidth: 2Mb, delay: 10ms}, edge_link: {bandwidth: 10Mb, delay: 1ms}}
      core_queue: RED
      flows: {tcp: {kind: ftp, agent: {class: Agent/TCP/Newreno}, sink: {class: Agent/TCPSink}}}
    duration: 5
    seeds: {count: 2}
    matrix:
      product:
        queue: {path: core_queue, levels: [RED, PI]}
        flows_n: {path: flows.tcp.count, levels: [2, 4]}
figures:
  - {id: delay, experiment: flows, module: figures.generic, function: metric_vs_axis,
     metric: bottleneck_queue_delay_ms_mean, x: flows_n, caption: "Fig. 5.1. Delay against flows"}
tables:
  - {id: table1, experiment: flows, function: table1, caption: "Table 1. Delay per queue"}
claims:
  - {id: pi_lower, kind: extreme, source: "§5, Fig. 5.1", experiment: flows, metric: bottleneck_queue_delay_ms_mean,
     axis: queue, level: PI, extreme: min, note: "a <b>note</b> with `code`"}
  - {id: pi_each, kind: value, source: "Table 1", experiment: flows, metric: bottleneck_queue_delay_ms_mean,
     where: {queue: PI}, combine: each, expected: 5, pass: {rel: 0.1}, drift: {rel: 0.3}}
  - {id: other_figure, kind: value, class: sanity, source: "Fig. 5.10", experiment: flows,
     metric: bottleneck_queue_delay_ms_mean, expected: 5, pass: {rel: 0.1}, drift: {rel: 0.3}}
headlines:
  - {id: pi_fastest, quote: "PI keeps the queue delay lowest.", source: "Abstract", claims: [pi_lower, pi_each],
     why: "the ordering, and PI's own delay"}
"""
TABLE_MD = (
    "**Table 1. Delay per queue**\n\nMean over `seeds`.\n\n| Queue | Delay (ms) |\n| :--- | ---: |\n| RED | 9.0 |\n"
)
FAILED_KEY = "f" * 20
MANIFEST = {"binary": {"sha256": "b" * 64}, "series": {"sha256": "s" * 64, "patches": []}, "key": "k" * 20}


def key(queue: str, flows: int, seed: int) -> str:
    return f"{queue.lower()}{flows}s{seed}".ljust(20, "0")


@pytest.fixture
def results(tmp_path) -> tuple[dict, Path]:
    """A results folder as reproduce-all leaves it, made up: PI's delay 5 ms, RED's 9 ms; PI with 4 flows lost its
    seed 2 (failed.parquet and its <key>.failed/)."""
    (tmp_path / "demo.yaml").write_text(FILE)
    doc = load(tmp_path / "demo.yaml")
    results = tmp_path / "results"
    exp = results / "demo" / "flows"
    runs = [(q, n, s) for q in ("RED", "PI") for n in (2, 4) for s in (1, 2) if (q, n, s) != ("PI", 4, 2)]
    context = [
        {"paper": "demo", "experiment": "flows", "queue": q, "flows_n": n, "seed": s, "run_key": key(q, n, s)}
        for q, n, s in runs
    ]
    write_parquet(
        pd.DataFrame([{**c, "directory": str(results / "runs" / c["run_key"])} for c in context]),
        exp / "runs.parquet",
        "runs",
    )
    metric = {"scope": "all", "metric": "bottleneck_queue_delay_ms_mean"}
    write_parquet(
        pd.DataFrame([{**c, **metric, "value": 9.0 if c["queue"] == "RED" else 5.0 + c["seed"] / 10} for c in context]),
        exp / "metrics.parquet",
        "metrics",
    )
    failed_dir = results / "runs" / f"{FAILED_KEY}.failed"
    write_parquet(
        pd.DataFrame(
            [
                {
                    "paper": "demo",
                    "experiment": "flows",
                    "queue": "PI",
                    "flows_n": 4,
                    "seed": 2,
                    "run_key": FAILED_KEY,
                    "directory": str(failed_dir),
                    "message": f"run {FAILED_KEY} (flows queue=PI flows_n=4 seed=2) failed: ns exited "
                    "with status 3\n  rerun: ns driver.tcl dir",
                    "rerun": f"build/ns2/ns tcl/driver.tcl {failed_dir}",
                }
            ]
        ),
        exp / "failed.parquet",
        "failed",
    )
    for c in context:
        (results / "runs" / c["run_key"]).mkdir(parents=True)
        for name in html_report.RUN_FILES:
            (results / "runs" / c["run_key"] / name).write_text("{}")
    failed_dir.mkdir()
    for name in html_report.FAILED_FILES:
        (failed_dir / name).write_text("injected fault\n")
    (results / "demo" / "figures").mkdir()
    Image.new("RGB", (30, 20), "white").save(results / "demo" / "figures" / "delay.png")
    (results / "demo" / "tables").mkdir()
    (results / "demo" / "tables" / "table1.md").write_text(TABLE_MD)
    (results / "demo" / "tables" / "table1.csv").write_text("queue,delay\nRED,9\n")
    (tmp_path / "manifest.json").write_text(json.dumps(MANIFEST))
    write_report([doc], results, tmp_path / "manifest.json", results / "REPORT.md", "smoke")
    return doc, results


def render(doc: dict, results: Path, with_sensitivity: bool = False) -> list[Path]:
    table = None
    if with_sensitivity:
        table = results / "sensitivity.parquet"
        baseline = load_measured(doc, results)  # the reading's runs are made up as the baseline's
        write_parquet(sensitivity_mod.table(doc, baseline, {"weight=fast": baseline}), table, "sensitivity")
        (results / "SENSITIVITY.md").write_text("made up\n")
    manifest = results.parent / "manifest.json"
    return html_report.write([doc], results, manifest, "smoke", "t" * 64, "abc123", table, draw_curve=spec_curves.draw)


class Page(HTMLParser):
    """A page's links, image sources, element ids and tables (id, or None, and each row's cell texts)."""

    def __init__(self, path: Path):
        super().__init__()
        self.links, self.images, self.ids, self.all_tables = [], [], set(), []
        self._table = self._row = self._cell = None
        self.feed(path.read_text())

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.ids.add(attrs.get("id"))
        if tag == "a" and "href" in attrs:
            self.links.append(attrs["href"])
        elif tag == "img":
            self.images.append(attrs["src"])
        elif tag == "table":
            self._table = []
            self.all_tables.append((attrs.get("id"), self._table))
        elif tag == "tr" and self._table is not None:
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self._row.append("".join(self._cell).strip())
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self._table.append(self._row)
            self._row = None
        elif tag == "table":
            self._table = None

    @property
    def tables(self) -> dict[str, list[list[str]]]:
        return {name: rows for name, rows in self.all_tables if name}

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def test_the_claim_rows_are_report_md_s_verdicts(results):
    doc, folder = results
    render(doc, folder)
    html_rows = Page(folder / "report" / "papers" / "demo.html").tables["claim-table"][1:]
    md_rows = [
        [c.strip() for c in line.strip("|").split(" | ")]
        for line in (folder / "REPORT.md").read_text().splitlines()
        if re.match(r"\| (pi_lower|pi_each|other_figure) ", line)
    ]
    md_rows = [row for row in md_rows if len(row) == 10]  # the claim tables', not the cell detail's
    # claim, source, expected, measured, verdict: the two reports' columns, in the same order
    assert [[r[0], r[1], r[4], r[5], r[9]] for r in html_rows] == [
        [r[0], r[1], r[3], r[4], r[8].strip("*")] for r in md_rows
    ]
    assert [(r[0], r[2], r[9]) for r in html_rows] == [
        ("pi_lower", "reproduction", "incomplete"),
        ("pi_each", "reproduction", "pass"),
        ("pi_each", "reproduction", "incomplete"),
        ("other_figure", "sanity", "fail"),
    ]


def test_a_failed_run_is_listed_with_its_stderr_and_rerun_script(results):
    doc, folder = results
    render(doc, folder)
    paper = folder / "report" / "papers" / "demo.html"
    text = paper.read_text()
    assert FAILED_KEY in text[text.index('id="failed"') :] and "ns exited with status 3" in text
    assert "Drawn without 1 failed run(s)" in text
    runs = Page(folder / "report" / "runs" / "demo" / "flows.html")
    assert [row[2] for row in runs.tables["failed-runs"][1:]] == [FAILED_KEY]
    assert [link for link in runs.links if FAILED_KEY in link] == [
        f"../../../runs/{FAILED_KEY}.failed/stderr.txt",
        f"../../../runs/{FAILED_KEY}.failed/rerun.sh",
    ]
    assert len(runs.tables["run-table"]) - 1 == 7, "every run that finished, one row each"


def test_every_link_and_image_resolves_and_every_anchor_exists(results):
    doc, folder = results
    written = render(doc, folder, with_sensitivity=True)
    assert [p.relative_to(folder).as_posix() for p in written] == html_report.curves([doc]) + html_report.pages([doc])
    parsed = {page.resolve(): Page(page) for page in written if page.suffix == ".html"}
    checked = 0
    for page, found in parsed.items():
        assert found.images or page.name != "demo.html", "the paper page shows its figure"
        for target in found.links + found.images:
            assert not re.match(r"[a-z]+:|/", target), f"{page}: {target} is not a relative link"
            path, _, anchor = target.partition("#")
            resolved = (page.parent / path).resolve() if path else page
            assert resolved.is_file(), f"{page}: {target} resolves to nothing"
            if anchor:
                assert anchor in parsed[resolved].ids, f"{page}: {target}: no such anchor"
            checked += 1
    assert checked > 7 * len(html_report.RUN_FILES)


def test_the_same_results_give_the_same_bytes_wherever_they_are(results, tmp_path):
    doc, folder = results
    first = {p.relative_to(folder): p.read_bytes() for p in render(doc, folder)}
    elsewhere = tmp_path / "moved" / "results"
    shutil.copytree(folder, elsewhere)
    shutil.copy(folder.parent / "manifest.json", elsewhere.parent)
    again = {p.relative_to(elsewhere): p.read_bytes() for p in render(doc, elsewhere)}
    assert again == first


def test_the_sensitivity_table_only_when_given(results):
    doc, folder = results
    render(doc, folder)
    without = (folder / "report" / "papers" / "demo.html").read_text()
    assert "comes with <code>snakemake sensitivity-all</code>" in without and 'class="sensitivity"' not in without
    render(doc, folder, with_sensitivity=True)
    page = Page(folder / "report" / "papers" / "demo.html")
    table = page.tables["sensitivity-flows"]
    # the reproduction claims (a cell each for combine: each) under the baseline, its only reading here
    assert [row[0] for row in table[1:]] == ["pi_lower", "pi_each [flows_n=2]", "pi_each [flows_n=4]"]
    assert "SENSITIVITY.md" in (folder / "report" / "index.html").read_text()


def test_footer_and_front_page(results):
    doc, folder = results
    render(doc, folder)
    front = (folder / "report" / "index.html").read_text()
    for text in (
        MANIFEST["binary"]["sha256"],
        MANIFEST["series"]["sha256"],
        MANIFEST["key"],
        "t" * 64,
        "abc123",
        "<code>smoke</code>",
        "<code>demo/flows</code> 2",
    ):
        assert text in front
    counts = Page(folder / "report" / "index.html").tables["counts-demo"]
    assert counts[0] == ["class", *VERDICTS, "claims"]
    assert counts[1:] == [
        ["Reproduction claims", "1", "", "", "2", "", "3"],
        ["Sanity checks", "", "", "1", "", "", "1"],
    ]
    assert (
        "4 claims, of which reproduction: 1 pass, 2 incomplete; 1 experiment, 7 runs measured, 1 failed; "
        "1 figure, 1 table."
    ) in front


def test_text_is_escaped_and_its_markdown_rendered(results):
    doc, folder = results
    render(doc, folder)
    text = (folder / "report" / "papers" / "demo.html").read_text()
    assert "a &lt;b&gt;note&lt;/b&gt; with <code>code</code>" in text
    assert '<td style="text-align: right">9.0</td>' in text and "Mean over <code>seeds</code>." in text


def test_an_identifier_breaks_after_its_underscores_only():
    assert html_report.breakable("fig4_8_<b>") == "fig4_<wbr>8_<wbr>&lt;b&gt;"
    assert html_report.breakable("loss") == "loss"


def test_a_table_file_s_markdown_as_blocks():
    blocks = markdown.blocks("**Caption**\nmore text\n| a | b \\| c |\n|:---|---:|\n| 1 | 2 |\nafter\n\n\nend")
    assert [b.text for b in blocks] == ["**Caption** more text", "", "after", "end"]
    assert (blocks[1].header, blocks[1].align, blocks[1].rows) == (("a", "b | c"), ("left", "right"), (("1", "2"),))


def test_a_figure_is_shown_beside_the_claims_that_cite_its_number_or_name_it():
    sources = [("a", "§5, Fig. 5.1"), ("b", "Fig. 5.10"), ("c", "Table 5.1"), ("d", "§5.1, Figs. 5.1-5.3")]
    claims = [{"id": i, "experiment": "e", "source": s} for i, s in sources]
    fig = {"id": "fig5_1", "experiment": "e", "caption": "Fig. 5.1. X"}
    assert [c["id"] for c in html_report.cited_by(fig, claims)] == ["a", "d"]
    table = {"id": "t5_1", "experiment": "e", "caption": "Table 5.1: Y"}
    assert [c["id"] for c in html_report.cited_by(table, claims)] == ["c"]
    assert html_report.cited_by({**fig, "experiment": "other"}, claims) == []
    load = {"id": "load", "experiment": "e", "caption": "Load of the link"}
    assert html_report.cited_by(load, claims) == []
    # a claim's `figures` name what it checks, whatever its source cites (a section, for most of Alemu's)
    named = [*claims, {"id": "e", "experiment": "e", "source": "§2.4", "figures": ["load", "fig5_1"]}]
    assert [c["id"] for c in html_report.cited_by(load, named)] == ["e"]
    assert [c["id"] for c in html_report.cited_by(fig, named)] == ["a", "d", "e"]


def test_the_html_rule_reads_the_sensitivity_table_only_for_sensitivity_all():
    assert wants_sensitivity(["reproduce-all", "sensitivity-all"]) and wants_sensitivity(["./sensitivity-all"])
    assert not wants_sensitivity([]) and not wants_sensitivity(None)
    assert not wants_sensitivity(["reproduce-all", "results/sensitivity.parquet"])


def test_each_paper_opens_with_its_headlines_and_their_curves(results):
    """The front page lists each headline with its verdict words and the curve's thumbnail; the paper page opens
    with them, each linking its claims; each curve is drawn, from the baseline alone without the sensitivity
    table and with every reading from it."""
    doc, folder = results
    curve = folder / "report" / "curves" / "demo" / "pi_fastest.png"
    render(doc, folder)
    without = Image.open(curve)
    assert without.format == "PNG" and without.size[0] > 300
    front = Page(folder / "report" / "index.html")
    row = front.tables["headlines-demo"][1]
    assert row[0].startswith("“PI keeps the queue delay lowest.”") and row[2] == "readings not run"
    assert "curves/demo/pi_fastest.png" in front.images
    page = Page(folder / "report" / "papers" / "demo.html")
    assert {"headline-pi_fastest", "claim-pi_lower", "claim-pi_each"} <= set(page.ids)
    assert "#claim-pi_lower" in page.links and "../curves/demo/pi_fastest.png" in page.images
    text = (folder / "report" / "papers" / "demo.html").read_text()
    assert text.index('id="headlines"') < text.index('id="experiments"')
    baseline_only = curve.read_bytes()
    render(doc, folder, with_sensitivity=True)
    front = Page(folder / "report" / "index.html")
    assert front.tables["headlines-demo"][1][2] == "no reading measured it"  # a failed run leaves a cell incomplete
    assert curve.read_bytes() != baseline_only, "drawn anew from the table"


def test_a_long_note_folds_behind_a_click(results):
    doc, folder = results
    long_note = "Hypothesis: " + "the queue stays short " * 20
    doc["claims"][0]["note"] = long_note
    render(doc, folder)
    text = (folder / "report" / "papers" / "demo.html").read_text()
    folded = text[text.index('id="claim-pi_lower"') :]
    assert folded.index("<details><summary>") < folded.index("</summary>") < folded.index(long_note.strip())
    assert "<details>" not in text[text.index('id="claim-pi_each"') :].split("</tr>")[0], "a short note stays open"


def test_a_quote_with_a_dollar_sign_is_drawn_as_written(results):
    """matplotlib reads text between two `$` as mathtext and fails where it cannot parse it: a headline's words are
    drawn literally."""
    doc, folder = results
    doc["headlines"][0]["quote"] = "PI keeps $x^^2$ low."  # between two $, what mathtext cannot parse
    render(doc, folder)
    assert Image.open(folder / "report" / "curves" / "demo" / "pi_fastest.png").format == "PNG"


def test_model_checks_have_a_section_of_their_own(results):
    doc, folder = results
    doc = {
        **doc,
        "model_checks": [
            {
                "id": "pi_a_printed",
                "class": "calibrated",
                "source": "§4.3",
                "quantity": "pi_a",
                "expected": 0.000344519,
                "args": {"capacity": 187.5, "n_min": 3, "rtt_max": 0.252, "sampling_hz": 170},
                "pass": {"abs": 1e-9},
            }
        ],
    }
    render(doc, folder)
    text = (folder / "report" / "papers" / "demo.html").read_text()
    section = text[text.index('id="model-checks"') :]
    assert 'href="#model-checks"' in text, "the page's contents name the section"
    assert "pi_a(capacity=187.5, n_min=3, rtt_max=0.252, sampling_hz=170)" in section and "0.000344519" in section
    assert section.index("pi_a_printed") < section.index("</table>")
