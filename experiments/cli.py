"""The command line of the core package. A bad file gives one line on stderr and exit 2."""

from __future__ import annotations

import argparse
import sys

from experiments import config, matrix

EXIT_BAD_CONFIG = 2


def _load_runs(path: str) -> tuple[dict, list[matrix.Run]]:
    doc = config.load(path)
    return doc, matrix.expand(doc, path)


def cmd_validate(args: argparse.Namespace) -> int:
    for path in args.files:
        doc, runs = _load_runs(path)
        print(f"{path}: ok ({len(doc['experiments'])} experiments, {len(runs)} runs, {len(doc['claims'])} claims)")
    return 0


def cmd_runs(args: argparse.Namespace) -> int:
    _, runs = _load_runs(args.file)
    for run in runs:
        labels = " ".join(f"{k}={v}" for k, v in run.labels.items())
        print(f"{run.experiment} {labels} seed={run.seed}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m experiments", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    validate = sub.add_parser("validate", help="check experiment files against the schema and each other")
    validate.add_argument("files", nargs="+")
    validate.set_defaults(func=cmd_validate)
    runs = sub.add_parser("runs", help="list the runs an experiment file expands into")
    runs.add_argument("file")
    runs.set_defaults(func=cmd_runs)
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except config.ConfigError as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_BAD_CONFIG
