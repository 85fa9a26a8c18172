"""What a run executes with: the ns binary, its build manifest and the Tcl driver; their hashes enter every run
key.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from experiments.planning.expansion import Run
from experiments.planning.runkey import parsers_digest, run_key, tcl_digest


@dataclass(frozen=True)
class Toolchain:
    """What a run executes with; its hashes enter every run key (the CPU limit does not: it decides whether a run
    ends, never what a run that ends writes)."""

    ns: Path  # build/ns2/ns
    manifest: Path  # build/ns2/manifest.json
    driver: Path  # tcl/driver.tcl
    parsed: bool = True  # False: run directories keep raw outputs only (benchmarks)
    cpu_limit: float = 0.0  # CPU s a run's ns may use before it is stopped (0: none); not in the key

    @property
    def ns_sha256(self) -> str:
        return json.loads(self.manifest.read_text())["binary"]["sha256"]

    @property
    def tcl_sha256(self) -> str:
        return tcl_digest(self.driver.parent)

    @property
    def code_sha256(self) -> str:
        """Tcl sources and parsers together: the code that turns params into a run directory."""
        return f"{self.tcl_sha256}:{parsers_digest() if self.parsed else 'unparsed'}"


def key_of(run: Run, tools: Toolchain, code_sha256: str | None = None) -> str:
    tcl_sha, parsers_sha = (code_sha256 or tools.code_sha256).split(":")
    return run_key(run.params, tcl_sha, tools.ns_sha256, parsers_sha)


def ns_command(tools: Toolchain, directory: Path) -> list[str]:
    return [str(tools.ns), str(tools.driver), str(directory)]
