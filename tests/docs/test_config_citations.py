"""Every path an experiment file cites can be found by its reader (issue 47).

A path-like citation in configs/*.yaml (comments, `why`, `note`, `choice`, captions: every line of the file) is a
word with a file extension (tcp.cc, notes/002_bqm.md, flows.tsv) or a word with a slash under one of the
repository's top-level folders or the roots below (ns2-patches/0010, results/...). Each is written in one of these
forms, or the test fails naming the file and the line:

- a repository path, relative to the repository's root, that exists: experiments/planning/mobility.py,
  ns2-patches/0010-queue-bqm.patch, docs/DESIGN.md;
- an ns-2.35 source file under the top folder of the tarball ns2-patches/ns2_build.py fetches: ns-2.35/tcp/tcp.cc
  (NS235_FILES, each checked against `tar -tJf ~/.cache/ns2-repro/src/ns2_2.35+dfsg.orig.tar.xz`);
- a file of the shared papers folder, which is outside the repository, followed by "in the shared papers folder":
  002_60d8be5e595a928c.txt (a paper, as the configs' `source:` names it) or notes/002_bqm.md (its extraction notes)
  or README.md (their index);
- a file of a run directory by the name docs/DESIGN.md gives it (in backticks there): meta.json, flows.tsv;
- a workflow output under results/ or build/ that docs/DESIGN.md or README.md names (in backticks):
  results/SENSITIVITY.md;
- a file of the paper's own, by the name the paper or its extraction notes give it, after "the paper's" or "the
  thesis's".

The top-level `source:` key holds a paper's file name alone: the report reads it from the shared papers folder.
An absolute path, one under ~ or one with .. is in none of these forms.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CONFIGS = sorted((REPO / "configs").glob("*.yaml"))
NS235 = "ns-2.35"  # ns2_build.TREE_NAME: the tarball's top folder
NS235_FILES = {
    "ns-2.35/indep-utils/cmu-scen-gen/cbrgen.tcl",
    "ns-2.35/mac/mac-802_11.cc",
    "ns-2.35/queue/pi.cc",
    "ns-2.35/queue/red.cc",
    "ns-2.35/queue/rem.cc",
    "ns-2.35/tcl/ex/jobs/jobs-cn2002.tcl",
    "ns-2.35/tcl/ex/simple-wireless.tcl",
    "ns-2.35/tcl/ex/wireless.tcl",
    "ns-2.35/tcl/lib/ns-default.tcl",
    "ns-2.35/tcp/tcp.cc",
}
SHARED = " in the shared papers folder"
OWN = ("the paper's ", "the thesis's ")
GENERATED = ("results", "build")  # git-ignored: what the workflow and `make ns2` write
EXTENSIONS = "md|txt|tcl|cc|h|c|cpp|py|tsv|json|yaml|yml|patch|tr|parquet|html|csv|sh|awk|pl|toml|j2|nam|png|pdf"
HAS_EXTENSION = re.compile(rf"\.(?:{EXTENSIONS})$")
WORD = re.compile(r"(?<![\w./+~-])(?:~?/)?[\w.+-]+(?:/[\w.+-]+)*/?")
SOURCE_KEY = re.compile(r"^source:\s*(\S+)\s*$")
PAPER_FILE = re.compile(r"^\d{3}_[0-9a-f]{16}\.txt$")  # the shared papers folder's README: each keeps its file name
PAPER_KEY = re.compile(r"^paper:\s*(\S+)\s*$", re.MULTILINE)


def _roots() -> set[str]:
    tracked = {p.name for p in REPO.iterdir() if p.is_dir() and not p.name.startswith(".")}
    return tracked | {NS235, "notes", "shared", *GENERATED}


ROOTS = _roots()


def _shared_files() -> set[str]:
    """The shared papers folder's files the configs may cite: each paper (its `source:`), its notes, the index."""
    files = {"README.md"}
    for path in CONFIGS:
        text = path.read_text(encoding="utf-8")
        source = next((m.group(1) for m in map(SOURCE_KEY.match, text.splitlines()) if m), None)
        paper = PAPER_KEY.search(text)
        if source and PAPER_FILE.match(source) and paper:
            files |= {source, f"notes/{source[:3]}_{paper.group(1)}.md"}
    return files


def _backticked(*docs: str) -> str:
    return "\n".join((REPO / doc).read_text(encoding="utf-8") for doc in docs)


def citations(line: str) -> list[tuple[int, str]]:
    """The path-like words of a line, with their positions."""
    found = []
    for match in WORD.finditer(line):
        word = match.group().rstrip(".-")
        parts = word.lstrip("~/").split("/")
        if HAS_EXTENSION.search(word) or ("/" in word and parts[0] in ROOTS):
            found.append((match.start(), word))
    return found


def problem(line: str, start: int, word: str, shared: set[str], design: str, outputs: str) -> str | None:
    """Why `word` (at `start` in `line`) is not in one of the allowed forms; None if it is."""
    before, after = line[:start], line[start + len(word) :]
    if word.startswith(f"{NS235}/"):
        if word in NS235_FILES:
            return None
        return f"not an {NS235} file this test knows: check it in the tarball's listing and add it to NS235_FILES"
    if after.startswith(SHARED):
        return None if word in shared else "not a file of the shared papers folder (a paper, its notes, README.md)"
    if SOURCE_KEY.match(line):  # the paper's file name: the report reads it in the shared papers folder
        return None if PAPER_FILE.match(word) else "not a paper's file name (NNN_<16 hex digits>.txt)"
    if word.startswith(("/", "~")) or ".." in word.split("/"):
        return "a path outside the repository: name the shared papers folder, ns-2.35/<path> or a repository path"
    if "/" not in word and before.endswith(OWN):
        return None
    if word.split("/")[0] in GENERATED:
        return None if f"`{word}`" in outputs else "an output that neither docs/DESIGN.md nor README.md names"
    if (REPO / word).exists():
        return None
    if "/" in word:
        return "not a path in the repository (relative to its root)"
    if f"`{word}`" in design:
        return None  # a run directory's file
    return (
        "a bare file name: write its repository path, ns-2.35/<path>, '<name> in the shared papers folder', "
        "a run file docs/DESIGN.md names, or 'the paper's <name>'"
    )


def problems(path: Path) -> list[str]:
    shared, design, outputs = _shared_files(), _backticked("docs/DESIGN.md"), _backticked("docs/DESIGN.md", "README.md")
    name = path.relative_to(REPO) if path.is_relative_to(REPO) else path
    out = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        for start, word in citations(line):
            why = problem(line, start, word, shared, design, outputs)
            if why:
                out.append(f"{name}:{number}: {word}: {why}")
    return out


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_config_citations_resolve(path: Path):
    bad = problems(path)
    assert not bad, "citations a reader cannot resolve:\n" + "\n".join(bad)


@pytest.mark.parametrize(
    "line, ok",
    [
        ("# see experiments/planning/expansion.py and ns2-patches/0010-queue-bqm.patch; README.md.", True),
        ("# see experiments/no_such_module.py", False),
        ("# see /work/shared/papers/notes/002_bqm.md and ../shared/papers/002_60d8be5e595a928c.txt", False),
        ("# ~/.cache/ns2-repro/src/ns-2.35/tcp/tcp.cc", False),
        ("# ns2-patches/0010 implements it", False),
        ('why: "ns-2.35/tcp/tcp.cc, TcpAgent::send_much"', True),
        ('why: "tcp/tcp.cc, TcpAgent::send_much"', False),
        ('why: "(tcp.cc, CLOSE_CWND_ONE)"', False),
        ("# notes/002_bqm.md in the shared papers folder", True),
        ("# Corrections to notes/002_bqm.md:", False),
        ("# Source: shared/papers/002_60d8be5e595a928c.txt", False),
        ("source: 002_60d8be5e595a928c.txt", True),
        ("# recorded in each run's meta.json; results/SENSITIVITY.md", True),
        ("# files in DESIGN.md §5.4", False),
        ("# the thesis's own_script.tcl", True),
        ("  class: Queue/DropTail/PriQueue/BQM   # 10 Mb/s, 1/k, Agent/TCP/Newreno, e.g. 5/15/0.002", True),
    ],
)
def test_citation_forms(line: str, ok: bool):
    """The rules on lines of each form, so that the test above cannot pass by seeing nothing."""
    shared = _shared_files()
    design, outputs = _backticked("docs/DESIGN.md"), _backticked("docs/DESIGN.md", "README.md")
    found = [problem(line, start, word, shared, design, outputs) for start, word in citations(line)]
    assert found or ok, f"no citation found in {line!r}"
    assert all(why is None for why in found) == ok, found
