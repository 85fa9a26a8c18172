"""The project's own code a module runs: the closure of its imports, read from the source, and its digest.

A stage's rerun trigger is the digest of the files its job imports, computed from the import statements (ast: no
module is imported to find them), so it cannot go stale the way a hand-kept list of files did: a module that a
stage imports through another, however deep, is in its digest; a module it does not import is not. Importing
a.b.c runs a/__init__.py and a/b/__init__.py too, so they count. Imports inside functions count as well (a job's
lazy imports are what it runs); only the project's packages are followed, the standard library and third-party
packages are what the pinned requirements say.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from functools import cache
from pathlib import Path

from experiments.common.files import files_digest

ROOT = Path(__file__).resolve().parents[2]  # the directory holding the project's packages
PACKAGES = ("experiments", "figures", "parsers")  # the project's own top-level packages


def module_file(name: str) -> Path | None:
    """The source of a module of the project (a.b.c -> a/b/c.py or a/b/c/__init__.py), or None."""
    parts = name.split(".")
    if parts[0] not in PACKAGES:
        return None
    base = ROOT.joinpath(*parts)
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _with_parents(name: str) -> list[str]:
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts) + 1)]


@cache
def imported_by(name: str) -> frozenset[str]:
    """The project modules a module's source imports (`from a.b import c` imports a.b, and a.b.c when c is a
    module), with the packages above each."""
    source = module_file(name)
    if source is None:
        return frozenset()
    found: set[str] = set()
    for node in ast.walk(ast.parse(source.read_text(), filename=str(source))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            targets = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        else:
            continue
        found |= {m for target in targets for m in _with_parents(target) if module_file(m) is not None}
    return frozenset(found)


def closure(roots: Iterable[str]) -> list[Path]:
    """Every source file the root modules run, theirs included, sorted."""
    seen: set[str] = set()
    todo = [m for root in roots for m in _with_parents(root)]
    while todo:
        name = todo.pop()
        if name not in seen and module_file(name) is not None:
            seen.add(name)
            todo += imported_by(name)
    return sorted(module_file(name) for name in seen)


def code_digest(roots: Iterable[str], extra: Iterable[Path] = ()) -> str:
    """sha256 over the files the roots run (and `extra` files they read, e.g. templates), by path and content."""
    return files_digest([*closure(roots), *extra], ROOT)
