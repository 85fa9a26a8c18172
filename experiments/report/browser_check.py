"""The HTML report as a reader's browser shows it: every page opened from the file system in headless Chromium
(Debian's /usr/bin/chromium, driven by Playwright) in a laptop-wide window, and what a reader would notice listed:
an image that did not load, a link to a file that does not exist, a headline shown without its specification
curve, a claim table whose verdict column lies beyond the window's right edge. `python -m experiments check-report
<results>/report` runs it on any results folder (the default profile's, say); tests/workflow/
test_html_report_browser.py uses its pieces on the smoke profile's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlparse

CHROMIUM = Path("/usr/bin/chromium")


VIEWPORT = {"width": 1200, "height": 800}


VERDICT_CELL = "#claim-table tbody tr td:nth-child(10)"


@dataclass
class PageCheck:
    page: Path
    images: int = 0
    broken_images: list[str] = field(default_factory=list)
    links: int = 0
    dead_links: list[Path] = field(default_factory=list)
    verdict_edge: float | None = None  # px from the left edge; None: the page has no claim table
    no_curve: list[str] = field(default_factory=list)  # ids of headlines shown without their curve

    def problems(self) -> list[str]:
        out = [f"{self.page}: image did not load: {src}" for src in self.broken_images]
        out += [f"{self.page}: headline without its curve: {h}" for h in self.no_curve]
        out += [f"{self.page}: link to a missing file: {path}" for path in self.dead_links]
        if self.verdict_edge is not None and self.verdict_edge > VIEWPORT["width"]:
            out.append(
                f"{self.page}: the verdict column ends at {self.verdict_edge:.0f} px, beyond the "
                f"{VIEWPORT['width']}-px window"
            )
        return out

    def summary(self) -> str:
        edge = "" if self.verdict_edge is None else f", verdict column ends at {self.verdict_edge:.0f} px"
        verdict = "ok" if not self.problems() else f"{len(self.problems())} problems"
        return f"{self.page}: {self.images} images, {self.links} file links{edge}: {verdict}"


def files_of(page) -> list[Path]:
    """The files an open page's links point to (not its anchors), resolved as the browser resolved them."""
    hrefs = page.eval_on_selector_all("a[href]", "links => links.map(a => a.href)")
    return [Path(unquote(urlparse(h).path)) for h in hrefs if urlparse(h).scheme == "file"]


def headlines_without_curve(page) -> list[str]:
    """The ids of the headlines an open page shows (front page rows, paper page sections) with no loaded curve."""
    return page.eval_on_selector_all(
        "tr.headline, section.headline",
        "hs => hs.filter(h => !Array.from(h.querySelectorAll('img')).some(i => i.complete && i.naturalWidth > 0))"
        ".map(h => h.id)",
    )


def verdict_edge(page) -> float | None:
    """The right edge of the claim table's verdict column in an open page, or None without a claim table."""
    if page.locator(VERDICT_CELL).count() == 0:
        return None
    return page.eval_on_selector(VERDICT_CELL, "cell => cell.getBoundingClientRect().right")


def check_page(page, html: Path) -> PageCheck:
    """Opens `html` in the browser page `page` and looks at it."""
    page.goto(html.resolve().as_uri(), wait_until="load")
    images = page.eval_on_selector_all(
        "img", "images => images.map(i => [i.getAttribute('src'), i.complete ? i.naturalWidth : 0])"
    )
    files = files_of(page)
    return PageCheck(
        html,
        len(images),
        [src for src, width in images if width == 0],
        len(files),
        sorted({f for f in files if not f.is_file()}),
        verdict_edge(page),
        headlines_without_curve(page),
    )


def check(report: Path, progress=print) -> list[PageCheck]:
    """Every page under `report` (a results folder's report/), each opened and looked at."""
    from playwright.sync_api import sync_playwright

    pages = sorted(report.rglob("*.html"))
    if not pages:
        raise FileNotFoundError(f"{report}: no HTML page here (the report is <results>/report/)")
    if not CHROMIUM.is_file():
        raise FileNotFoundError(f"{CHROMIUM}: no Chromium here (apt-get install chromium)")
    out = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM))
        tab = browser.new_page(viewport=VIEWPORT)
        for html in pages:
            out.append(check_page(tab, html))
            progress(out[-1].summary())
        browser.close()
    return out
