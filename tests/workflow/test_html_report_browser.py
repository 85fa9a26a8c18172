"""The HTML report as a reviewer sees it: a small sweep through Snakemake (smoke profile) to `reproduce-all`, then
its pages in headless Chromium (Debian's, /usr/bin/chromium, driven by Playwright): the front page and the paper
page load with every image, the verdict table has a row per claim (per cell for combine: each), and every link to
a run's files resolves. Then `sensitivity-all` renders the report again, with the sensitivity table.

Skipped when Chromium or Playwright is missing, unless NS2REPRO_BROWSER=1 (CI's test stage), where that fails."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from test_failed_runs_reported import LINKED, sweep

from experiments.report import browser_check as report_check
from experiments.report.browser_check import CHROMIUM, VIEWPORT, files_of

REPO = Path(__file__).resolve().parents[2]
# An open choice with one alternative, so that sensitivity-all has a reading to run (RED's cells only: 3 runs).
CHOICE = {
    "id": "red_weight",
    "what": "RED's queue weight",
    "choice": "0.002",
    "why": "the sweep's own",
    "path": "queues.RED.knobs.q_weight_",
    "alternatives": [{"label": "fast", "value": 0.02, "why": "a faster average"}],
}


HEADLINE = {
    "id": "pi_keeps_delay_low",
    "quote": "PI keeps the queueing delay lower than RED, and near its reference.",
    "source": "this test",
    "claims": ["pi_holds_delay_lower", "pi_delay_per_flows"],
    "why": "the ordering, and PI's own delay at each number of flows",
}


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium under Playwright; skipped (or failed, with NS2REPRO_BROWSER=1) when either is missing."""
    missing = [] if CHROMIUM.is_file() else [f"{CHROMIUM} (apt-get install chromium)"]
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing.append("the playwright package (requirements.txt)")
    if missing:
        reason = "needs " + " and ".join(missing)
        if os.environ.get("NS2REPRO_BROWSER") == "1":
            pytest.fail(f"NS2REPRO_BROWSER=1 and the browser test {reason}")
        pytest.skip(reason)
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM))
        yield chromium
        chromium.close()


def screenshot(browser, html: Path, png: Path, full_page: bool = False):
    """Opens a page of the report from the file system and saves what it shows (docs/report-front.png was made the
    same way, on the default profile's results of all five papers); returns the open page."""
    page = browser.new_page(viewport=VIEWPORT)
    page.goto(html.as_uri(), wait_until="load")
    page.screenshot(path=str(png), full_page=full_page)
    return page


@pytest.fixture(scope="module")
def sweep_run(tmp_path_factory, ns_binary) -> tuple[Path, Path, dict]:
    """reproduce-all of the sweep (SWEEP, one seed, a claim per flow count, an open choice) in a checkout of
    symlinks, so that its stamp and logs stay out of the repository; returns the checkout, results and file."""
    root = tmp_path_factory.mktemp("html")
    work = root / "checkout"
    (work / "build").mkdir(parents=True)
    for name in LINKED:
        (work / name).symlink_to(REPO / name)
    (work / "build" / "ns2").symlink_to(ns_binary.parent.resolve())
    sweep_file = sweep(root / "red_pi_flows.yaml")
    doc = yaml.safe_load(sweep_file.read_text())
    doc["choices"] = [CHOICE]
    for claim in doc["claims"]:
        claim["figures"] = ["delay_vs_flows"]
    doc["headlines"] = [HEADLINE]
    sweep_file.write_text(yaml.safe_dump(doc, sort_keys=False))
    results = root / "results"
    proc = snakemake(work, sweep_file, results, "reproduce-all")
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    return work, results, doc


def snakemake(work: Path, sweep_file: Path, results: Path, target: str) -> subprocess.CompletedProcess:
    cmd = [
        sys.executable,
        "-m",
        "snakemake",
        "--profile",
        "profiles/smoke",
        "--cores",
        "2",
        "--config",
        f"experiment_files={sweep_file}",
        f"results={results}",
        "--",
        target,
    ]
    return subprocess.run(cmd, cwd=work, capture_output=True, text=True, timeout=1200)


def claim_rows(doc: dict) -> int:
    """The rows the claim table must have, from the file alone: one per claim, or per cell (the levels of the axes
    it leaves free) for combine: each."""
    axes = doc["experiments"]["flows"]["matrix"]["product"]
    rows = 0
    for claim in doc["claims"]:
        free = [a for a in axes if a not in claim.get("where", {}) and a != claim.get("axis")]
        cells = 1
        for axis in free if claim.get("combine") == "each" else []:
            cells *= len(axes[axis]["levels"])
        rows += cells
    return rows


LONG_ID = "fig4_8_ared_feng_loss_rate_above_psand_at_every_load_on_topo_diff"  # longer than any shipped claim id


def verdict_column_right_edge(page) -> float:
    """Where the claim table's verdict column ends, in CSS pixels from the page's left edge, once the first row
    holds a claim id and a metric name longer than any shipped one (neither has a place to break)."""
    page.eval_on_selector("#claim-table tbody tr td:nth-child(1) code", "(c, id) => { c.textContent = id; }", LONG_ID)
    page.eval_on_selector("#claim-table tbody tr td:nth-child(4)", "(c, id) => { c.append(id); }", LONG_ID)
    return report_check.verdict_edge(page)


def test_the_report_in_a_browser(browser, sweep_run, tmp_path):
    work, results, doc = sweep_run
    front = screenshot(browser, results / "report" / "index.html", tmp_path / "front.png")
    assert front.title().startswith("Reproduction report")
    assert front.locator("#counts-red_pi_flows").count() == 1, "the claim counts of the paper"
    assert front.locator("#headlines-red_pi_flows tr.headline").count() == len(doc["headlines"])
    assert report_check.headlines_without_curve(front) == [], "a headline's thumbnail on the front page"
    front.click("#red_pi_flows h2 a")  # to the paper's page, as a reader would
    front.wait_for_load_state("load")
    assert front.url.endswith("/report/papers/red_pi_flows.html")
    front.screenshot(path=str(tmp_path / "paper.png"), full_page=True)
    assert (tmp_path / "front.png").stat().st_size > 10_000 and (tmp_path / "paper.png").stat().st_size > 10_000

    widths = front.eval_on_selector_all("img", "images => images.map(i => i.complete ? i.naturalWidth : 0)")
    curves = len(doc["headlines"])
    assert len(widths) == len(doc["figures"]) + curves and all(w > 0 for w in widths), f"a broken image: {widths}"
    # every headline with its curve, and every figure with the claims that check it
    assert report_check.headlines_without_curve(front) == [] and front.locator("section.headline").count() == curves
    checks = front.locator(".artifact aside").all_inner_texts()
    assert checks and all("Claims that check it" in text for text in checks), checks
    rows = front.locator("#claim-table tbody tr")
    assert rows.count() == claim_rows(doc) == 4
    verdicts = front.locator("#claim-table tbody tr td:nth-child(10)").all_inner_texts()
    assert set(verdicts) <= {"pass", "drift", "fail", "incomplete", "missing"} and len(verdicts) == 4
    assert "comes with snakemake sensitivity-all" in front.inner_text("#sensitivity + p")
    assert verdict_column_right_edge(front) <= VIEWPORT["width"], "the verdict column lies beyond the window"

    run_pages = [f for f in files_of(front) if "/report/runs/" in f.as_posix()]
    assert run_pages and all(f.is_file() for f in files_of(front)), "a link of the paper page resolves to nothing"
    for run_page in sorted(set(run_pages)):
        front.goto(run_page.as_uri())
        files = files_of(front)
        assert {f.name for f in files} >= {"params.json", "meta.json", "manifest.json"}
        assert all(f.is_file() for f in files), [f for f in files if not f.is_file()]
        assert front.locator("#run-table tbody tr").count() == 6, "the sweep's six runs"
    front.close()


def test_sensitivity_all_renders_the_report_with_the_sensitivity_table(sweep_run):
    work, results, doc = sweep_run
    paper = results / "report" / "papers" / "red_pi_flows.html"
    assert "comes with <code>snakemake sensitivity-all</code>" in paper.read_text()
    proc = snakemake(work, Path(results.parent / "red_pi_flows.yaml"), results, "sensitivity-all")
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    text = paper.read_text()
    assert 'id="sensitivity-flows"' in text and "<th>red_weight=fast</th>" in text
    assert "sensitivity-all</code> (it runs" not in text


def test_check_report_lists_what_a_reader_would_notice(browser, sweep_run, tmp_path):
    """`python -m experiments check-report` on a copy of the sweep's results: clean, then with a figure, a run's
    params.json and the claim table's fixed widths taken away, each named (and exit 1)."""
    _, results, _ = sweep_run
    copy = tmp_path / "results"
    shutil.copytree(results, copy, symlinks=True)
    report = copy / "report"
    command = [sys.executable, "-m", "experiments", "check-report", str(report)]
    clean = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert clean.returncode == 0 and clean.stdout.endswith(": 0 problems\n"), clean.stdout + clean.stderr

    figure = next((copy / "red_pi_flows" / "figures").glob("*.png"))
    figure.unlink()
    # a run the report links (the sweep's readings add runs only the sensitivity table names)
    linked = re.findall(
        r'href="[^"]*runs/([0-9a-f]+)/params\.json"', "".join(page.read_text() for page in report.rglob("*.html"))
    )
    params = copy / "runs" / sorted(linked)[0] / "params.json"
    params.unlink()
    paper = report / "papers" / "red_pi_flows.html"
    head, table = paper.read_text().replace('class="fitted"', "").split('id="claim-table"')
    paper.write_text(head + 'id="claim-table"' + table.replace("<td><code>", f"<td><code>{LONG_ID * 2}", 1))
    broken = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert broken.returncode == 1, broken.stdout + broken.stderr
    assert f"image did not load: ../../red_pi_flows/figures/{figure.name}" in broken.stderr
    assert f"link to a missing file: {params}" in broken.stderr
    assert "the verdict column ends at" in broken.stderr and ": 3 problems" in broken.stdout
