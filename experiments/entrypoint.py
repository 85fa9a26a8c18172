"""The container's entry point: Snakemake with the arguments given, one line instead of a traceback when they
are wrong.

    python -m experiments.entrypoint [snakemake arguments]

Snakemake's `--config` and `--configfile` take every following word up to the next option, so a target written
after them is read as a config entry or a file: `--config` then stops with a Python traceback, `--configfile` with
a message about YAML keys. Both are caught here before Snakemake starts, with the fix in the message, and
exit status 2, as for a bad experiment file. Everything else is Snakemake's, unchanged.
"""

from __future__ import annotations

import sys

EXIT_BAD_ARGUMENTS = 2
CONFIG_OPTIONS = ("--config", "-C")
CONFIGFILE_OPTIONS = ("--configfile", "--configfiles")
CONFIGFILE_SUFFIXES = (".yaml", ".yml", ".json")  # what Snakemake reads (a stamp like reproduce-all is a file too)


def argument_error(argv: list[str]) -> str | None:
    """What is wrong with Snakemake's arguments that Snakemake reports badly, or None."""
    option = None
    for word in argv:
        if word == "--":
            return None
        if word.startswith("-"):
            option = None if "=" in word else word  # --config=a=b takes nothing more
            continue
        if option in CONFIG_OPTIONS and "=" not in word:
            return _swallowed(word, option, "a name=value pair", "experiment_files=...")
        if option in CONFIGFILE_OPTIONS and not word.endswith(CONFIGFILE_SUFFIXES):
            return _swallowed(word, option, "a YAML or JSON file", "profiles/smoke/settings.yaml")
    return None


def _swallowed(word: str, option: str, expected: str, example: str) -> str:
    return (
        f"'{word}' after {option} is not {expected} ({option} takes every word up to the next option): "
        f"put targets before {option}, e.g. `{word} {option} {example}`"
    )


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    problem = argument_error(argv)
    if problem:
        print(f"ns2-repro: {problem}", file=sys.stderr)
        return EXIT_BAD_ARGUMENTS
    from snakemake.cli import main as snakemake_main

    snakemake_main(argv)  # exits with Snakemake's own status
    return 0


if __name__ == "__main__":
    sys.exit(main())
