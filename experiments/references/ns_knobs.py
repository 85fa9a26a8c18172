"""The knob names ns-2 binds for each class, asked of our ns binary and cached by the binary's sha256.

The answer depends only on the binary, so it is cached beside the ns build cache,
$NS2REPRO_CACHE (default ~/.cache/ns2-repro)/knobs/<sha256>.json: shared by every checkout and
worktree using the same binary, kept across `make clean`, and outside the repository, so that it
never enters a run key or the results. A class not yet in the file costs one ns run (~40 ms).

"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
from pathlib import Path

from experiments.common.files import sha256_file, write_atomic

SCRIPT = Path(__file__).with_name("ns_knobs.tcl")


class KnobQueryError(Exception):
    """ns could not be asked (crash, bad output)."""


def cache_root() -> Path:
    """As ns2-patches/ns2_build.py's cache_root."""
    return Path(os.environ.get("NS2REPRO_CACHE", Path.home() / ".cache" / "ns2-repro"))


class KnobCatalog:
    """The classes under Queue, Agent, Application, ErrorModel, Mac and Phy of one ns binary, and the knobs of those
    asked."""

    def __init__(self, ns_binary: Path):
        self.ns_binary = Path(ns_binary)
        # Keyed by the script too: a script that asks about more classes must not read an older answer.
        self.cache = cache_root() / "knobs" / f"{sha256_file(self.ns_binary)}-{sha256_file(SCRIPT)[:12]}.json"
        self.data = {"heritage": {}, "knobs": {}}
        if self.cache.is_file():
            with contextlib.suppress(ValueError):  # a damaged cache is asked again
                self.data = json.loads(self.cache.read_text())

    def ensure(self, classes: set[str]) -> None:
        """Ask ns for the knobs of the classes not known yet (one ns run for all of them), then cache them."""
        missing = sorted(c for c in classes if c not in self.data["knobs"])
        if self.data["heritage"] and not [c for c in missing if c in self.data["heritage"]]:
            return  # everything missing is no ns class at all
        answer = self._ask(missing)
        self.data["heritage"] = answer["heritage"]
        self.data["knobs"].update(answer["knobs"])
        self._write()

    def _ask(self, classes: list[str]) -> dict:
        command = [str(self.ns_binary), str(SCRIPT), *classes]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=True)
            return json.loads(done.stdout)
        except (OSError, subprocess.SubprocessError, ValueError) as err:
            raise KnobQueryError(f"cannot ask {self.ns_binary} for knob names: {err}") from None

    def _write(self) -> None:
        with contextlib.suppress(OSError):  # a cache that cannot be written (read-only home) is only slower
            write_atomic(self.cache, json.dumps(self.data, sort_keys=True))  # parallel validations read it whole

    def is_class(self, cls: str) -> bool:
        return cls in self.data["heritage"]

    def descendants(self, base: str) -> list[str]:
        """`base` and every class that derives from it, sorted (as tcl/lib/params.tcl's repro::descendants)."""
        return sorted(c for c, above in self.data["heritage"].items() if c == base or base in above)

    def knobs(self, cls: str) -> dict:
        """{"knobs": [...], "unbound": [...]} or {"error": "..."} when ns-2 cannot create one."""
        return self.data["knobs"][cls]
