"""The core package's shape: its subpackages in stage order, data flowing one way.

A module may import its own package and the stages before it, never a later one (docs/DESIGN.md opens with the
map), and no module imports itself through others (no circle, lazy imports inside functions included: they were
how circles hid). Read from the sources' import statements, as the rerun digests are (experiments.common.code).
"""

from __future__ import annotations

import itertools

import pytest

from experiments.common.code import ROOT, imported_by, module_file

# Each stage may import the ones on the same line or above. figures/ (drawing, called by the workflow) and the
# command line sit on top; parsers/ (a run's outputs to parquet) imports nothing of the core package.
STAGES = [
    ("experiments.common", "experiments.paper_models"),
    ("experiments.config",),
    ("experiments.planning",),
    ("experiments.store",),
    ("experiments.simulate",),
    ("experiments.measure",),
    ("experiments.references",),
    ("experiments.verdicts",),
    ("experiments.report",),
    ("figures",),
    ("experiments.workflow",),
    ("experiments.cli", "experiments.__main__", "experiments.entrypoint"),
]
RANK = {name: rank for rank, names in enumerate(STAGES) for name in names}
PARSERS_RANK = -1  # below everything: it imports nothing of ours


def modules() -> list[str]:
    return sorted(
        ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        for package in ("experiments", "figures", "parsers")
        for path in (ROOT / package).rglob("*.py")
    )


def stage(module: str) -> int | None:
    """The rank of a module's stage; None for the package roots (experiments, its docstring only)."""
    if module.split(".")[0] == "parsers":
        return PARSERS_RANK
    for prefix in sorted(RANK, key=len, reverse=True):
        if module == prefix or module.startswith(prefix + "."):
            return RANK[prefix]
    return None


def direct_imports(module: str) -> set[str]:
    """The project modules a module imports, without the packages above them (importing a.b.c runs a.b's
    __init__, which imports nothing of ours)."""
    found = imported_by(module)
    return {m for m in found if not any(other.startswith(m + ".") for other in found)} - {module}


def test_every_module_of_the_core_package_has_a_stage():
    unplaced = [m for m in modules() if m.startswith("experiments.") and stage(m) is None]
    assert unplaced == [], "a module outside every stage: add it to a subpackage (and to DESIGN.md's map)"


@pytest.mark.parametrize("module", modules())
def test_no_module_imports_a_later_stage(module):
    own = stage(module)
    if own is None:
        return
    later = sorted(m for m in direct_imports(module) if (stage(m) or 0) > own)
    assert later == [], f"{module} (stage {own}) imports a later stage: {later}"


def test_no_circle():
    graph = {m: direct_imports(m) for m in modules()}
    state: dict[str, str] = {}
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = "open"
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                return path[path.index(nxt) :] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        state[node] = "done"
        path.pop()
        return None

    for start in graph:
        if start not in state and (circle := visit(start)):
            pytest.fail("import circle: " + " -> ".join(circle))


def test_the_checks_see_imports_of_every_form(tmp_path, monkeypatch):
    """The reader behind both checks finds `import a.b`, `from a import b` (b a module) and a lazy import in a
    function, so that a later-stage import or a circle cannot hide from it."""
    package = tmp_path / "experiments"
    (package / "config").mkdir(parents=True)
    (package / "report").mkdir()
    for init in (package, package / "config", package / "report"):
        (init / "__init__.py").write_text("")
    (package / "config" / "a.py").write_text("def f():\n    from experiments.report import b\n")
    (package / "report" / "b.py").write_text("import experiments.config.a\n")
    monkeypatch.setattr("experiments.common.code.ROOT", tmp_path)
    imported_by.cache_clear()
    try:
        assert module_file("experiments.config.a") == package / "config" / "a.py"
        assert "experiments.report.b" in direct_imports("experiments.config.a")
        assert "experiments.config.a" in direct_imports("experiments.report.b")
        assert stage("experiments.report.b") > stage("experiments.config.a")
    finally:
        imported_by.cache_clear()


def test_the_stages_are_those_of_the_package():
    packages = sorted(p.parent.name for p in (ROOT / "experiments").glob("*/__init__.py"))
    named = sorted(
        n.split(".")[1]
        for n in itertools.chain(*STAGES)
        if n.startswith("experiments.") and (ROOT / n.replace(".", "/")).is_dir()
    )
    assert packages == named
