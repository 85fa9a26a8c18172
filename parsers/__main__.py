"""`python -m parsers <run_dir> --out <dir> [--context '<json>']`: the parquet tables of one run (DESIGN.md §6)."""

from __future__ import annotations

import argparse
import json
import sys

from parsers.run import parse_run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m parsers", description=__doc__)
    parser.add_argument(
        "run_dir",
        help="a run directory: meta.json, queue_monitor.tsv, packets.tr (unless params.json turns it off), flows.tsv",
    )
    parser.add_argument(
        "--out",
        required=True,
        help="directory for <kind>.parquet: queue, journeys/hops/flow_sums (with a trace), flows (with flows.tsv)",
    )
    parser.add_argument(
        "--context",
        default="{}",
        help='JSON {"seed", "run_key"} and optionally "paper", "experiment", "labels": {...}; '
        "seed defaults to the run's params.json, run_key to its directory name",
    )
    parser.add_argument("--workers", type=int, default=None, help="threads reading the trace (default: cores)")
    args = parser.parse_args(argv)
    try:
        context = json.loads(args.context)
        if not isinstance(context, dict):
            raise ValueError("--context must be a JSON object")
        parse_run(args.run_dir, args.out, context, workers=args.workers)
    except (OSError, ValueError) as exc:  # json.JSONDecodeError and pyarrow's ArrowInvalid are ValueErrors
        print(f"ns2-repro parsers: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
