"""The command line of the core package. A bad file gives one line on stderr and exit 2."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from experiments.config import cut
from experiments.config.errors import ConfigError
from experiments.config.load import load
from experiments.config.readings import experiments_of, run_readings
from experiments.measure import registry
from experiments.planning import profiles
from experiments.planning.expansion import Expansion
from experiments.references import check as references

EXIT_BAD_CONFIG = 2


def _load_runs(path: str, ns_binary: Path) -> tuple[dict, list[Expansion]]:
    """The file's baseline runs (unresolved: one step per matrix cell), after every reference and every matrix
    cell under every alternative reading were checked."""
    doc = load(path)
    references.check(doc, path, ns_binary)  # an absent binary: knob names unchecked, with a note
    baseline = [Expansion(doc, path, name) for name in doc["experiments"]]
    for runs in baseline:
        runs.check()
    for reading in run_readings(doc):
        for name in experiments_of(doc, reading):
            Expansion(doc, path, name, reading).check()
    return doc, baseline


def _count_runs(path: str, cfg: dict) -> int:
    """The baseline runs of the file under the default profile's settings, or the paper profile's."""
    doc = profiles.load(path, profiles.Settings.from_config({**cfg, "experiment_files": [path]}))
    return sum(len(Expansion(doc, path, name)) for name in doc["experiments"])


def cmd_validate(args: argparse.Namespace) -> int:
    for path in args.files:
        doc, _ = _load_runs(path, args.ns)
        count = {profile: _count_runs(path, {"replications": profile}) for profile in profiles.REPLICATIONS}
        runs = f"{count['file']} runs" + (
            "" if count["paper"] == count["file"] else f", {count['paper']} on the paper profile"
        )
        print(f"{path}: ok ({len(doc['experiments'])} experiments, {runs}, {len(doc['claims'])} claims)")
    return 0


def cmd_runs(args: argparse.Namespace) -> int:
    _, expansions = _load_runs(args.file, args.ns)
    for runs in expansions:
        axes = [name for name in runs.cells[0].labels] if runs.cells else []
        for context in runs.contexts():
            labels = " ".join(f"{k}={context[k]}" for k in axes)
            print(f"{context['experiment']} {labels} seed={context['seed']}")
    return 0


def cmd_cut(args: argparse.Namespace) -> int:
    part = cut.write(args.file, args.experiments, args.output, check=lambda path: _load_runs(str(path), args.ns))
    print(
        f"{args.output}: {len(part['experiments'])} experiments, {len(part['claims'])} claims, "
        f"{len(part.get('headlines', []))} headlines of {args.file}"
    )
    return 0


def cmd_metrics(args: argparse.Namespace) -> int:
    print(registry.markdown(), end="")
    return 0


def cmd_check_report(args: argparse.Namespace) -> int:
    from experiments.report import browser_check

    try:
        pages = browser_check.check(args.report)
    except FileNotFoundError as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_BAD_CONFIG
    problems = [line for page in pages for line in page.problems()]
    for line in problems:
        print(line, file=sys.stderr)
    print(
        f"{len(pages)} pages, {sum(p.images for p in pages)} images, {sum(p.links for p in pages)} file links: "
        f"{len(problems)} problems"
    )
    return 1 if problems else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m experiments", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    ns_help = f"the ns binary whose classes and knobs are checked (default {references.DEFAULT_NS})"
    validate = sub.add_parser("validate", help="check experiment files against the schema, each other and ns-2")
    validate.add_argument("files", nargs="+")
    validate.add_argument("--ns", type=Path, default=references.DEFAULT_NS, help=ns_help)
    validate.set_defaults(func=cmd_validate)
    runs = sub.add_parser("runs", help="list the runs an experiment file expands into")
    runs.add_argument("file")
    runs.add_argument("--ns", type=Path, default=references.DEFAULT_NS, help=ns_help)
    runs.set_defaults(func=cmd_runs)
    part = sub.add_parser(
        "cut",
        help="write the part of an experiment file holding some of its experiments, to run a big file a part at a "
        "time into one results folder (experiments/config/cut.py)",
    )
    part.add_argument("file")
    part.add_argument("--experiments", nargs="+", required=True, help="the experiments to keep, by name")
    part.add_argument("--output", type=Path, required=True, help="the part's file")
    part.add_argument("--ns", type=Path, default=references.DEFAULT_NS, help=ns_help)
    part.set_defaults(func=cmd_cut)
    metrics = sub.add_parser("metrics", help="print every metric figures and claims can name, as a markdown table")
    metrics.set_defaults(func=cmd_metrics)
    report = sub.add_parser(
        "check-report",
        help="open every page of an HTML report in headless Chromium and list "
        "broken images, links to missing files and a verdict column beyond a 1,200-px window",
    )
    report.add_argument("report", type=Path, help="the report folder, <results>/report")
    report.set_defaults(func=cmd_check_report)
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except ConfigError as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_BAD_CONFIG
