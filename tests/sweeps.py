"""What the tests that run Snakemake share: a scratch copy of the checkout, and the jobs a dry run lists."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def copy_checkout(root: Path) -> Path:
    """The checkout's files (tracked and new, not ignored; times kept, so make sees its set-up done) under `root`,
    and its ns-2 build copied after them (newer than the sources: the build rule stays done)."""
    listed = (
        subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=REPO,
            capture_output=True,
            check=True,
        )
        .stdout.decode()
        .split("\0")
    )
    for name in filter(None, listed):
        if (REPO / name).is_file():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, root / name, follow_symlinks=False)
    shutil.copytree(REPO / "build" / "ns2", root / "build" / "ns2", copy_function=shutil.copy)
    return root


def dry_run_jobs(output: str) -> dict[str, int]:
    """Jobs per rule in the output of `snakemake --dry-run` ({} when nothing is to be done)."""
    if "Nothing to be done" in output:
        return {}
    counts = dict(re.findall(r"^([a-z_]+)\s+(\d+)$", output.split("Job stats:", 1)[1], flags=re.M))
    counts.pop("total", None)
    return {rule: int(n) for rule, n in counts.items()}
